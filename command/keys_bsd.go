//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package command

import "golang.org/x/sys/unix"

// The ioctls that read and set a terminal's attributes.
const getTermios, setTermios = unix.TIOCGETA, unix.TIOCSETA
