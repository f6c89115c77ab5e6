package host

import "syscall"

// dieWithParent has the kernel kill the host when oracle dies.
func dieWithParent(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
