//go:build unix

package runner

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strconv"
)

// bwrapCommand returns the bwrap command line that runs a's command in its
// sandbox, with work and home bound writable.
//
// The protocol's pipes in and out reach the agent as descriptors 3 and 4,
// which bwrap's own processes close: were they bwrap's stdin and stdout,
// bwrap would hold them open, and an agent that closes its stdin would not
// be seen to. A first shell moves them to 0 and 1 and becomes the agent's
// shell, which runs the command as it would without the sandbox. bwrap
// writes the PID of the namespace's init, as the host sees it, on info
// (descriptor 5).
func bwrapCommand(a *execAgent, work, home string, in, out, info *os.File) *exec.Cmd {
	args := append(a.plan.args(work, home, 5), "/bin/sh", "-c", `exec /bin/sh -c "$0" <&3 >&4 3<&- 4>&-`, a.cfg.Command)
	cmd := exec.Command(a.bwrap, args...)
	cmd.ExtraFiles = []*os.File{in, out, info}
	return cmd
}

// readNamespaceInit reads bwrap's --info-fd JSON and returns the host PID
// of the namespace's init, 0 when bwrap wrote none (it failed first).
func readNamespaceInit(r io.Reader) int {
	var info struct {
		ChildPID json.Number `json:"child-pid"`
	}
	if err := json.NewDecoder(io.LimitReader(r, 64<<10)).Decode(&info); err != nil {
		return 0
	}
	pid, err := strconv.Atoi(info.ChildPID.String())
	if err != nil || pid <= 1 {
		return 0
	}
	return pid
}
