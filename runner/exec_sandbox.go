//go:build unix

package runner

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"
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
// (descriptor 5). bwrap's processes close the pipes only once the agent may
// already be running: see awaitSandboxRelease. When the runner is root,
// that first shell runs as the agent user (see bwrapAsUser).
func bwrapCommand(a *execAgent, work, home string, in, out, info *os.File) *exec.Cmd {
	args := append(a.plan.args(work, home, 5, dropsToAgentUser()), "/bin/sh", "-c", `exec /bin/sh -c "$0" <&3 >&4 3<&- 4>&-`, a.cfg.Command)
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

// awaitSandboxRelease waits until bwrap's own processes, its monitor and the
// namespace's init, have closed their copies of the agent's stdin, so that
// only the agent holds it: then an agent that closes its stdin makes the
// next write fail, as it does without the sandbox, instead of that write
// landing in the pipe unread whenever the agent was quicker than bwrap. It
// gives up when ctx is done or after limit (a bwrap that kept the pipe would
// be no worse than before); it reads /proc, and where it cannot, returns.
func (p *process) awaitSandboxRelease(ctx context.Context, limit time.Duration) {
	fi, err := p.stdin.Stat()
	if err != nil {
		return
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return
	}
	pipe := "pipe:[" + strconv.FormatUint(uint64(st.Ino), 10) + "]"
	var init int
	select {
	case init = <-p.nsInit:
		p.nsInit <- init // finish reads it again
	case <-ctx.Done():
		return
	}
	give := time.NewTimer(limit)
	defer give.Stop()
	for _, pid := range []int{p.cmd.Process.Pid, init} {
		for pid > 0 && holdsFile(pid, pipe) {
			select {
			case <-ctx.Done():
				return
			case <-give.C:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}
}

// holdsFile reports whether process pid has a descriptor open on the file
// /proc names target ("pipe:[123]"); false when it cannot be read.
func holdsFile(pid int, target string) bool {
	dir := "/proc/" + strconv.Itoa(pid) + "/fd"
	fds, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, fd := range fds {
		if l, err := os.Readlink(dir + "/" + fd.Name()); err == nil && l == target {
			return true
		}
	}
	return false
}
