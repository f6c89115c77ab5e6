//go:build unix

package host

import (
	"os/exec"
	"syscall"
)

// setGroup starts the host in a process group of its own, which dies with
// oracle where the system can say so: a host stuck in a loop reads no EOF.
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	dieWithParent(cmd.SysProcAttr)
}

// killGroup kills the host's whole process group.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
