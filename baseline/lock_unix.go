//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package baseline

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

const openNonBlock = syscall.O_NONBLOCK

var errWouldBlock = unix.EWOULDBLOCK

func lockFile(f *os.File) error   { return unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) }
func unlockFile(f *os.File) error { return unix.Flock(int(f.Fd()), unix.LOCK_UN) }
