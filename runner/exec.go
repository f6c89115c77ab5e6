//go:build unix

package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/agent-oracle/oracle/env"
)

// ExecAgent returns an agent that runs cfg.Command as an external process
// speaking the JSON Lines protocol of docs/protocol.md: the runner writes a
// start message on the agent's stdin, answers each call with a result, and
// takes the agent's output message as its final output. When the runner
// stops the rollout it sends a stop message, waits cfg.Grace, then kills the
// agent's whole process group and reaps it. The agent runs in a process
// group of its own, in a working folder of its own, with only PATH, HOME and
// the variables cfg.Env names.
//
// Whatever goes wrong with the process (a line that is not a JSON object,
// an unknown message, a call without id or tool, a line over
// cfg.MaxLineBytes, an exit or a crash before the output) ends the rollout
// as an agent error that says which. The end of stderr goes to the trace as
// an agent_stderr event.
//
// On Linux the first exec agent makes the process a child subreaper, so
// that the agent's orphaned children are reaped too rather than left as
// zombies in a container without an init that reaps.
//
// cfg.Sandbox says how the agent is contained (see docs/protocol.md): under
// bubblewrap it runs in namespaces of its own, sees the filesystem
// read-only without the project, and nothing of it survives the rollout.
// A sandbox that cannot be set up makes every rollout an agent error.
func ExecAgent(cfg ExecConfig) env.Agent {
	a, err := execAgentFor(cfg, nil)
	if err != nil {
		return env.AgentFunc(func(context.Context, env.AgentInput) (any, error) { return nil, err })
	}
	return a
}

// execAgentFor returns the exec agent cfg configures once its sandbox is
// chosen and planned; warn, when not nil, is given the warning of an auto
// sandbox that falls back to none.
func execAgentFor(cfg ExecConfig, warn func(string)) (env.Agent, error) {
	cfg = cfg.withDefaults()
	mode, warning, err := cfg.Sandbox.choose()
	if err != nil {
		return nil, err
	}
	if warning != "" && warn != nil {
		warn(warning)
	}
	a := &execAgent{cfg: cfg, mode: mode}
	if mode == SandboxBwrap {
		a.bwrap, _ = BwrapStatus()
		if a.plan, err = planBwrap(cfg.Sandbox, cfg.Command, cfg.environ("")); err != nil {
			return nil, err
		}
	}
	return a, nil
}

type execAgent struct {
	cfg   ExecConfig
	mode  SandboxMode // bwrap or none
	bwrap string      // bwrap's path, for mode bwrap
	plan  *bwrapPlan  // for mode bwrap
}

// SandboxMode says how the agent is contained: bwrap or none.
func (a *execAgent) SandboxMode() SandboxMode { return a.mode }

// Run starts the process, converses with it, and always leaves nothing of
// its process group running.
func (a *execAgent) Run(ctx context.Context, in env.AgentInput) (any, error) {
	p, err := startProcess(a)
	if err != nil {
		return nil, err
	}
	defer p.close(in)
	out, err := p.converse(ctx, in)
	if err != nil && p.unstarted && ctx.Err() == nil {
		// an agent that never spoke (a missing command, an import that
		// fails) is trouble of the run, not a behaviour to grade
		err = env.Infrastructure(p.startError())
	}
	if err != nil || out == nil {
		return nil, err
	}
	return out, nil
}

// process is one running agent.
type process struct {
	cfg  ExecConfig
	cmd  *exec.Cmd
	pgid int
	dir  string // the working folder
	temp string // the temporary folder removed when the agent ends, if any
	// sandboxed: the leader is bwrap, which passes on the agent's status
	sandboxed bool
	nsInit    chan int // the host PID of the namespace's init, or 0

	stdin  *os.File // the runner's end of the agent's stdin
	stdout *os.File // the runner's end of the agent's stdout
	lines  chan line
	quit   chan struct{} // closed when the conversation is over

	exited  chan struct{} // closed once the leader has been reaped
	waitErr error         // the leader's exit; read after exited is closed

	stderr     *tailBuffer
	stderrFile *os.File
	stderrDone chan struct{}

	unwatch     func() bool   // stops the cancellation watch of stdin
	deadlineSet chan struct{} // closed when the watch has run

	partial  bool  // the last write to stdin stopped inside a line
	writeErr error // a write to stdin failed: the agent no longer reads it
	finished bool
	killed   bool // the runner killed the leader
	spoke    bool // the agent sent a message
	// unstarted: the agent exited, or closed its stdout or stdin, before
	// its first message
	unstarted bool
}

func startProcess(a *execAgent) (p *process, err error) {
	cfg := a.cfg
	p = &process{
		cfg: cfg, dir: cfg.Dir, lines: make(chan line), quit: make(chan struct{}),
		exited: make(chan struct{}), stderr: &tailBuffer{max: cfg.MaxStderrBytes},
		stderrDone: make(chan struct{}), deadlineSet: make(chan struct{}),
	}
	var home string // the sandboxed agent's private home
	if p.dir == "" || a.plan != nil {
		if p.temp, err = os.MkdirTemp("", "oracle-agent-"); err != nil {
			return nil, fmt.Errorf("exec agent: make its working folder: %w; set TMPDIR to a writable folder", err)
		}
		if p.dir == "" {
			p.dir = p.temp
		}
	}
	var files []*os.File // every end, closed on failure
	defer func() {
		if err != nil {
			for _, f := range files {
				f.Close()
			}
			if p.temp != "" {
				os.RemoveAll(p.temp)
			}
		}
	}()
	drop := a.plan != nil && dropsToAgentUser()
	if a.plan != nil {
		// the temporary folder holds the home and, unless one is given,
		// the working folder, each bound writable in the sandbox
		home = filepath.Join(p.temp, "home")
		owned := []string{p.temp, home}
		if p.dir == p.temp {
			p.dir = filepath.Join(p.temp, "work")
			owned = append(owned, p.dir)
		}
		for _, d := range []string{home, p.dir} {
			if err := os.MkdirAll(d, 0o700); err != nil {
				return nil, fmt.Errorf("exec agent: make its working folder: %w; set TMPDIR to a writable folder", err)
			}
		}
		if drop {
			// the agent runs as the agent user: its folders are its own
			if err := giveToAgentUser(owned...); err != nil {
				return nil, fmt.Errorf("exec agent: give its folders to the agent user: %w", err)
			}
		}
	}
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err == nil {
			files = append(files, r, w)
		}
		return r, w, err
	}
	inR, inW, err := pipe()
	if err != nil {
		return nil, fmt.Errorf("exec agent: %w", err)
	}
	outR, outW, err := pipe()
	if err != nil {
		return nil, fmt.Errorf("exec agent: %w", err)
	}
	errR, errW, err := pipe()
	if err != nil {
		return nil, fmt.Errorf("exec agent: %w", err)
	}
	cmd := exec.Command("/bin/sh", "-c", cfg.Command)
	cmd.Stdin, cmd.Stdout = inR, outW
	var infoR, infoW *os.File
	if a.plan != nil {
		if infoR, infoW, err = pipe(); err != nil {
			return nil, fmt.Errorf("exec agent: %w", err)
		}
		p.sandboxed = true
		cmd = bwrapCommand(a, p.dir, home, inR, outW, infoW)
	}
	cmd.Stderr = errW
	// bwrap's own environment is visible inside (its init's): it gets
	// only the agent's
	cmd.Dir, cmd.Env = p.dir, cfg.environ(home)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	prepareReaping()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("exec agent: start %q: %w", cfg.Command, err)
	}
	// the child holds its ends now
	inR.Close()
	outW.Close()
	errW.Close()
	p.nsInit = make(chan int, 1)
	if infoW != nil {
		infoW.Close()
		go func() {
			p.nsInit <- readNamespaceInit(infoR)
			infoR.Close()
		}()
	} else {
		p.nsInit <- 0
	}
	p.cmd, p.pgid = cmd, cmd.Process.Pid
	p.stdin, p.stdout, p.stderrFile = inW, outR, errR
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	go func() {
		io.Copy(p.stderr, errR)
		close(p.stderrDone)
	}()
	go readLines(outR, cfg.MaxLineBytes, p.lines, p.quit)
	return p, nil
}

// converse speaks the protocol until the agent sends its output, breaks the
// protocol, exits, or ctx is done. It returns the agent's output, nil when
// the agent gave none.
func (p *process) converse(ctx context.Context, in env.AgentInput) (output json.RawMessage, err error) {
	p.unwatch = context.AfterFunc(ctx, func() {
		// unblock a write to an agent that does not read its stdin
		p.stdin.SetWriteDeadline(time.Unix(1, 0))
		close(p.deadlineSet)
	})
	start, err := startLine(in)
	if err != nil {
		return nil, err
	}
	// When a write fails, the agent no longer reads its stdin, but it may
	// have written its messages (an output, say) and exited: read them
	// for a grace period before calling it a failure.
	var (
		writeFailed <-chan time.Time
		timer       *time.Timer
	)
	failed := func(err error) {
		if timer == nil {
			p.writeErr = err
			timer = time.NewTimer(p.cfg.Grace)
			writeFailed = timer.C
		}
	}
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	if p.sandboxed {
		p.awaitSandboxRelease(ctx, 5*time.Second)
	}
	if err := p.send(start); err != nil && ctx.Err() == nil {
		failed(err)
	}
	exited := p.exited
	for {
		select {
		case <-ctx.Done():
			return nil, p.stop(ctx)
		case <-writeFailed:
			p.unstarted = !p.spoke
			return nil, p.writeFailed(ctx, p.writeErr)
		case <-exited:
			// The leader is gone. Kill what it left behind, so that stdout
			// closes, and read what it wrote before it went.
			exited = nil
			p.kill()
		case l := <-p.lines:
			if l.err == io.EOF {
				p.unstarted = !p.spoke
				return nil, p.earlyExit()
			}
			if l.err != nil {
				return nil, l.err
			}
			m, err := parseMessage(l)
			if err != nil {
				return nil, err
			}
			p.spoke = p.spoke || m.Type != ""
			switch m.Type {
			case "":
				continue // a blank line
			case "output":
				return m.output(), p.afterOutput()
			}
			if p.writeErr != nil {
				// the result could not reach the agent
				return nil, p.writeFailed(ctx, p.writeErr)
			}
			r := in.Call(ctx, m.Tool, m.input())
			if err := p.send(resultLine(m.ID, r)); err != nil {
				if ctx.Err() != nil {
					return nil, p.stop(ctx)
				}
				failed(err)
			}
		}
	}
}

// send writes one line to the agent's stdin. A write cut short (by the
// cancellation deadline) leaves half a line, which the next line ends.
func (p *process) send(b []byte) error {
	if p.partial {
		b = append([]byte{'\n'}, b...)
	}
	n, err := p.stdin.Write(b)
	p.partial = err != nil && n > 0 && n < len(b)
	return err
}

// stop sends the stop message, gives the agent its grace period to exit,
// then ends its process group.
func (p *process) stop(ctx context.Context) error {
	reason := env.StopReason(context.Cause(ctx))
	if reason == "" {
		reason = "cancelled"
	}
	if !p.unwatch() {
		<-p.deadlineSet
	}
	p.stdin.SetWriteDeadline(time.Now().Add(p.cfg.Grace))
	p.send(stopLine(reason))
	p.awaitExit()
	p.finish()
	return fmt.Errorf("stopped (%s): %w", reason, context.Cause(ctx))
}

// afterOutput closes the agent's stdin, which tells it to exit, and waits
// the grace period for it to do so. An agent that exits with a failure
// status after its output is an agent error; one that lingers is killed
// without blame.
func (p *process) afterOutput() error {
	p.stdin.Close()
	p.awaitExit()
	p.finish()
	if p.killed || p.waitErr == nil {
		return nil
	}
	return fmt.Errorf("the agent process %s after sending its output%s", p.exitText(), p.stderrNote())
}

// earlyExit handles the end of the agent's stdout before its output.
func (p *process) earlyExit() error {
	p.awaitExit()
	p.finish()
	if p.killed {
		return fmt.Errorf("the agent process closed its stdout without sending output%s", p.stderrNote())
	}
	return fmt.Errorf("the agent process %s before sending output%s", p.exitText(), p.stderrNote())
}

// writeFailed handles a write to the agent's stdin that failed: usually an
// agent that exited or closed its stdin.
func (p *process) writeFailed(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return p.stop(ctx)
	}
	p.awaitExit()
	p.finish()
	if p.killed {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err // not the pipe's name
		}
		return fmt.Errorf("cannot write to the agent's stdin: %v; an agent reads its stdin until the rollout ends%s", err, p.stderrNote())
	}
	return fmt.Errorf("the agent process %s before sending output%s", p.exitText(), p.stderrNote())
}

// awaitExit waits up to the grace period for the leader to exit.
func (p *process) awaitExit() {
	select {
	case <-p.exited:
		return
	default:
	}
	t := time.NewTimer(p.cfg.Grace)
	defer t.Stop()
	select {
	case <-p.exited:
	case <-t.C:
	}
}

// kill sends SIGKILL to the agent's whole process group.
func (p *process) kill() {
	syscall.Kill(-p.pgid, syscall.SIGKILL)
}

// finish kills the process group, reaps it and ends the readers. It is
// idempotent.
func (p *process) finish() {
	if p.finished {
		return
	}
	p.finished = true
	select {
	case <-p.exited:
	default:
		p.killed = true
	}
	p.kill()
	<-p.exited
	reapNamespace(<-p.nsInit)
	reapGroup(p.pgid)
	close(p.quit)
	p.stdout.Close()
	p.stdin.Close()
	// Every writer of stderr is dead, so it ends now, unless a process
	// left the group and holds it.
	t := time.NewTimer(100 * time.Millisecond)
	defer t.Stop()
	select {
	case <-p.stderrDone:
	case <-t.C:
		p.stderrFile.Close()
		<-p.stderrDone
	}
	p.stderrFile.Close()
}

// close ends the agent if needed, traces its stderr and removes its
// temporary working folder.
func (p *process) close(in env.AgentInput) {
	if p.unwatch != nil {
		p.unwatch()
	}
	p.finish()
	if text, total, dropped := p.stderr.snapshot(); total > 0 && in.Log != nil {
		fields := map[string]any{"stderr": text}
		if dropped > 0 {
			fields["droppedBytes"] = dropped
		}
		in.Log("agent_stderr", fields)
	}
	if p.temp != "" {
		os.RemoveAll(p.temp)
	}
}

// exitText says how the leader ended.
func (p *process) exitText() string {
	var ee *exec.ExitError
	if errors.As(p.waitErr, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			if p.killed && ws.Signal() == syscall.SIGKILL {
				return "was killed by the runner"
			}
			return "was killed by signal " + ws.Signal().String()
		}
		if code := ee.ExitCode(); p.sandboxed && code > 128 && code < 128+65 {
			// bwrap passes on a signal's death as 128+signal, as a shell does
			return "was killed by signal " + syscall.Signal(code-128).String()
		}
		return fmt.Sprintf("exited with status %d", ee.ExitCode())
	}
	if p.waitErr != nil {
		return "failed: " + p.waitErr.Error()
	}
	return "exited with status 0"
}

// stderrNote is the end of the agent's stderr on one line, for an error.
func (p *process) stderrNote() string {
	text, _, _ := p.stderr.snapshot()
	if note := oneLine(text, 300); note != "" {
		return "; stderr: " + note
	}
	return "; its stderr was empty"
}

// startError is the error of an agent that never started: the last line
// of its stderr first (the exception of an import that failed, the
// shell's "not found"), then how it ended and the rest of its stderr.
func (p *process) startError() error {
	text, _, _ := p.stderr.snapshot()
	lines := strings.Split(strings.TrimSpace(text), "\n")
	last := oneLine(lines[len(lines)-1], 300)
	if last == "" {
		return fmt.Errorf("the agent did not start: it %s before its first message, and its stderr was empty", p.exitText())
	}
	more := ""
	if len(lines) > 1 {
		more = p.stderrNote()
	}
	return fmt.Errorf("the agent did not start: %s (it %s before its first message%s)", last, p.exitText(), more)
}
