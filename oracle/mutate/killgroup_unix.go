//go:build unix

package mutate

import (
	"os/exec"
	"syscall"
	"time"
)

// killGroup makes cmd start its own process group and kills the whole
// group when its context ends.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
}
