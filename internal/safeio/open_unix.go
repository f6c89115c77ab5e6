//go:build unix

package safeio

import (
	"io/fs"
	"os"
	"syscall"
)

// open opens path for reading without ever blocking (a FIFO opens at once
// with O_NONBLOCK and is refused by the caller's fstat) and, when noFollow
// is set, without following a symlink at path.
func open(path string, noFollow bool) (*os.File, error) {
	flags := os.O_RDONLY | syscall.O_NONBLOCK
	if noFollow {
		flags |= syscall.O_NOFOLLOW
	}
	f, err := os.OpenFile(path, flags, 0)
	if err != nil {
		if noFollow && isSymlink(path) {
			return nil, &fs.PathError{Op: "open", Path: path, Err: ErrSymlink}
		}
		return nil, err
	}
	return f, nil
}

// OpenFlagsNoFollow are the flags that keep an open from following a
// symlink at the path's last component.
const OpenFlagsNoFollow = syscall.O_NOFOLLOW

func isSymlink(path string) bool {
	info, err := os.Lstat(path)
	return err == nil && info.Mode()&fs.ModeSymlink != 0
}

// openAny opens path, following a symlink, for reading without ever
// blocking; the caller looks at what it opened.
func openAny(path string) (*os.File, error) { return open(path, false) }
