//go:build !unix

package mutate

import (
	"os/exec"
	"time"
)

// killGroup kills cmd when its context ends; without process groups its
// children may outlive it.
func killGroup(cmd *exec.Cmd) {
	cmd.WaitDelay = 2 * time.Second
}
