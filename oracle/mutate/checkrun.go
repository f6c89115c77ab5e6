package mutate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// Checker runs oracle check: a binary (the user's own, rebuilt with a
// mutant, or this one) on a project folder.
type Checker struct {
	Bin string
	// Dir is the project folder the check reads (.silo and the
	// environment's code)
	Dir string
	// Env is added to the process's environment
	Env []string
}

// Case is one case of a selection, as oracle check names it.
type Case struct {
	Key   string `json:"case"`
	Env   string `json:"env"`
	Agent string `json:"agent"`
	Task  string `json:"task"`
}

// checkReport is the part of oracle check's JSON report mutate reads.
type checkReport struct {
	Summary struct {
		Total     int `json:"total"`
		Unchanged int `json:"unchanged"`
	} `json:"summary"`
	Cases []checkCase `json:"cases"`
	// Error is the error object a check that failed as a whole prints
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

type checkCase struct {
	Case
	Status     string `json:"status"`
	OldVerdict string `json:"oldVerdict"`
	NewVerdict string `json:"newVerdict"`
	Error      string `json:"error"`
	Files      []struct {
		File string `json:"file"`
	} `json:"files"`
}

// errTimeout is a check that ran out of time.
var errTimeout = errors.New("timed out")

// checkRun is one finished oracle check.
type checkRun struct {
	exit   int
	report checkReport
	stderr string
}

// run runs oracle check on the cases the selection args name (--env,
// --agent, --task flags), with the time limit timeout (none when 0). The
// check runs in its own process group, which is killed when ctx ends or
// the time is up.
func (c Checker) run(ctx context.Context, timeout time.Duration, args ...string) (*checkRun, error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, c.Bin, append([]string{"--dir", c.Dir, "check", "--format", "json"}, args...)...)
	cmd.Dir = c.Dir
	cmd.Env = append(append(os.Environ(), "NO_COLOR=1"), c.Env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	killGroup(cmd)
	err := cmd.Run()
	if ctx.Err() != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) && context.Cause(ctx) == context.DeadlineExceeded {
			return nil, errTimeout
		}
		return nil, ctx.Err()
	}
	r := &checkRun{stderr: strings.TrimSpace(stderr.String())}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		r.exit = exit.ExitCode()
	case err != nil:
		return nil, fmt.Errorf("run %s check: %w", c.Bin, err)
	}
	if jerr := json.Unmarshal(stdout.Bytes(), &r.report); jerr != nil && r.exit != 2 {
		return nil, fmt.Errorf("oracle check printed no JSON report (exit %d): %v; %s", r.exit, jerr, firstLine(r.stderr))
	}
	return r, nil
}

// killGroup makes cmd start its own process group and kills the whole
// group when its context ends.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
}

// firstLine is the first line of s.
func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// selectionArgs are the check flags that select cases.
func selectionArgs(env string, agents, tasks []string) []string {
	args := []string{"--env", env}
	for _, a := range agents {
		args = append(args, "--agent", a)
	}
	for _, t := range tasks {
		args = append(args, "--task", t)
	}
	return args
}

// caseArgs select exactly the cases given, or a few more of their agents
// and tasks' product.
func caseArgs(env string, cases []Case) []string {
	var agents, tasks []string
	seenA, seenT := map[string]bool{}, map[string]bool{}
	for _, c := range cases {
		if !seenA[c.Agent] {
			seenA[c.Agent] = true
			agents = append(agents, globQuote(c.Agent))
		}
		if !seenT[c.Task] {
			seenT[c.Task] = true
			tasks = append(tasks, globQuote(c.Task))
		}
	}
	return selectionArgs(globQuote(env), agents, tasks)
}

// globQuote escapes the glob characters of a name.
func globQuote(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
