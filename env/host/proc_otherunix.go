//go:build unix && !linux

package host

import "syscall"

// dieWithParent does nothing where the kernel offers no parent-death
// signal: a host exits when its stdin closes.
func dieWithParent(*syscall.SysProcAttr) {}
