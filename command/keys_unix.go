//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package command

import "golang.org/x/sys/unix"

// cbreak puts the terminal fd in cbreak mode (each key is read as it is
// typed, not echoed; output and signals as usual) and returns what
// restores it.
func cbreak(fd int) (restore func(), err error) {
	old, err := unix.IoctlGetTermios(fd, getTermios)
	if err != nil {
		return nil, err
	}
	t := *old
	t.Lflag &^= unix.ICANON | unix.ECHO
	t.Cc[unix.VMIN], t.Cc[unix.VTIME] = 1, 0
	if err := unix.IoctlSetTermios(fd, setTermios, &t); err != nil {
		return nil, err
	}
	return func() { _ = unix.IoctlSetTermios(fd, setTermios, old) }, nil
}
