package runner

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/internal/canon"
	"github.com/agent-oracle/oracle/internal/gopool"
	"github.com/agent-oracle/oracle/internal/safeio"
	"github.com/agent-oracle/oracle/runner/statediff"
)

// Defaults of Config.
const (
	DefaultMaxToolCalls = 100
	DefaultTimeout      = 120 * time.Second
	DefaultGrace        = 2 * time.Second
)

// Config is a rollout's budget and bookkeeping.
type Config struct {
	MaxToolCalls int           // 0 means DefaultMaxToolCalls
	Timeout      time.Duration // 0 means DefaultTimeout
	// Grace is how long the runner waits for a stopped agent to return
	// before abandoning it; 0 means DefaultGrace.
	Grace time.Duration
	// Agent is the agent's reference as given by the user, for run.json.
	Agent string
	// Clock returns the time for run.json and the trace; nil means time.Now.
	Clock func() time.Time
	// ResultOnly skips run.json and trace.jsonl: the Outcome's
	// Artifacts.Run and Artifacts.Trace stay nil and agents' Log events are
	// dropped. For callers that keep only the baseline files (check,
	// record), which then do not pay for building the others.
	ResultOnly bool
}

func (c Config) withDefaults() Config {
	if c.MaxToolCalls <= 0 {
		c.MaxToolCalls = DefaultMaxToolCalls
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.Grace <= 0 {
		c.Grace = DefaultGrace
	}
	if c.Clock == nil {
		c.Clock = time.Now
	}
	return c
}

// Outcome is a finished rollout: its result, its state diff, and the bytes
// of its artifacts.
type Outcome struct {
	RunID       string
	Environment string
	Task        env.Task
	Result      *Result
	Diff        *statediff.Diff
	Artifacts   Artifacts
}

// Artifacts are the bytes of a run's files.
type Artifacts struct {
	Result    []byte // result.json
	StateDiff []byte // state-diff.json
	Calls     []byte // calls.json
	Run       []byte // run.json
	Trace     []byte // trace.jsonl
}

// RunInfo is the content of run.json.
type RunInfo struct {
	RunID             string    `json:"runId"`
	Environment       string    `json:"environment"`
	TaskID            string    `json:"taskId"`
	Task              env.Task  `json:"task"`
	VerifierID        string    `json:"verifierId"`
	VerifierName      string    `json:"verifierName"`
	Config            RunConfig `json:"config"`
	StartedAt         string    `json:"startedAt"`
	FinishedAt        string    `json:"finishedAt"`
	DurationMs        int64     `json:"durationMs"`
	TerminationReason string    `json:"terminationReason"`
	ToolCallCount     int       `json:"toolCallCount"`
	// Sandbox is how an exec agent was contained (bwrap or none); absent
	// for other agents. It is recorded here only: what the machine has
	// must not change result.json or state-diff.json.
	Sandbox SandboxMode `json:"sandbox,omitempty"`
	// AgentOutputFrom names the file a replay read its final output from,
	// when its trace had none (the original runner's traces).
	AgentOutputFrom string `json:"agentOutputFrom,omitempty"`
}

// RunConfig is the resolved configuration recorded in run.json.
type RunConfig struct {
	MaxToolCalls int    `json:"maxToolCalls"`
	TimeoutMs    int64  `json:"timeoutMs"`
	Agent        string `json:"agent"`
}

// Run rolls agent through task in a fresh world of e. It returns an error
// only for trouble outside the rollout (the world cannot be made, a state
// does not marshal, ctx was cancelled); whatever the agent does ends in an
// Outcome with the verifier's result.
func Run(ctx context.Context, e env.Environment, task env.Task, agent env.Agent, cfg Config) (*Outcome, error) {
	cfg = cfg.withDefaults()
	world, err := e.Open(task)
	if err != nil {
		return nil, err
	}
	if r, ok := world.(env.ReleasingWorld); ok {
		// no artifact holds the final state's bytes: they are read to diff
		// and grade, and given back at the end
		defer r.Release()
	}
	r := start(ctx, e, task, world, agent, cfg)
	defer r.cancel(nil)
	timer := time.AfterFunc(cfg.Timeout, func() { r.s.end(env.ErrTimeout) })
	defer timer.Stop()

	reason, output, agentErr := r.roll(agent)
	if reason == "" {
		// the caller cancelled the rollout: no result
		return nil, r.errorf("%w", context.Cause(ctx))
	}
	result, diff, err := r.judge(reason, output, agentErr)
	if err != nil {
		return nil, err
	}
	return r.outcome(agent, result, diff)
}

// rollout is one call of Run: the world, the session the agent's calls go
// through, and what run.json and the trace record of it.
type rollout struct {
	e       env.Environment
	task    env.Task
	world   env.World
	cfg     Config
	runID   string
	started time.Time
	rc      RunConfig
	tools   []env.ToolSpec
	trace   *Trace // nil: no trace is kept
	s       *session
	// cancel ends the session's context, the one the agent and its tools
	// are given
	cancel context.CancelCauseFunc
}

// start begins the rollout of agent in world: the run's id and start time,
// the trace's run_start event, and the session whose context, derived from
// ctx, the rollout's cancel ends.
func start(ctx context.Context, e env.Environment, task env.Task, world env.World, agent env.Agent, cfg Config) *rollout {
	r := &rollout{e: e, task: task, world: world, cfg: cfg, started: cfg.Clock()}
	r.runID = newRunID(r.started)
	if !cfg.ResultOnly {
		r.trace = newTrace(cfg.Clock)
	}
	r.rc = RunConfig{MaxToolCalls: cfg.MaxToolCalls, TimeoutMs: cfg.Timeout.Milliseconds(), Agent: cfg.Agent}
	r.tools = world.Tools()
	if r.trace != nil {
		r.trace.add("run_start", f("runId", r.runID), f("environment", e.Name()), f("task", task), f("config", r.rc), f("tools", toolsJSON(e.Name(), r.tools)))
	}
	actx, cancel := context.WithCancelCause(ctx)
	r.cancel = cancel
	r.s = newSession(actx, world, agent, r.tools, r.trace, cfg)
	r.s.stop = func(reason error) { cancel(reason) }
	return r
}

// errorf is an error of the rollout, which names its environment and task.
func (r *rollout) errorf(format string, args ...any) error {
	return fmt.Errorf("run %s %s: "+format, append([]any{r.e.Name(), r.task.ID}, args...)...)
}

// roll runs agent until it returns or the rollout is stopped (the budget,
// the timeout or the caller), then ends the rollout: once roll returns, no
// call reaches the world. A stopped agent is given cfg.Grace to return,
// then abandoned. The termination reason is "" when the caller cancelled.
func (r *rollout) roll(agent env.Agent) (reason string, output json.RawMessage, agentErr error) {
	done := r.runAgent(agent)
	var ret agentReturn
	finished := false
	select {
	case ret = <-done:
		finished = true
	case <-r.s.ctx.Done():
	}
	reason, output, agentErr = r.s.finish(ret, finished)
	// the rollout is over: a tool still running sees its context end, and
	// the world is read only once no call is in flight (a stuck tool is
	// abandoned and the world keeps the state from before its call)
	r.cancel(errRolloutOver)
	r.s.quiesce()
	if reason != Completed && !finished {
		// give a stopped agent a grace period to return, then abandon it
		select {
		case <-done:
		case <-time.After(r.cfg.Grace):
		}
	}
	return reason, output, agentErr
}

// runAgent runs agent on a goroutine of its own, which sends what it
// returned, or the panic or runtime.Goexit that ended it, on the channel.
func (r *rollout) runAgent(agent env.Agent) <-chan agentReturn {
	done := make(chan agentReturn, 1)
	trace, s := r.trace, r.s
	in := env.AgentInput{Task: r.task.Instruction, Tools: r.tools, Call: s.call, Log: trace.log}
	gopool.Go(func() {
		returned := false
		defer func() {
			if p := recover(); p != nil {
				// the stack goes to the trace only: result.json stays byte-stable
				trace.add("agent_panic", f("panic", fmt.Sprint(p)), f("stack", string(debug.Stack())))
				done <- agentReturn{err: fmt.Errorf("agent panicked: %v", p)}
			} else if !returned {
				done <- agentReturn{err: errors.New("the agent's goroutine ended (runtime.Goexit) before the agent returned")}
			}
		}()
		out, err := agent.Run(s.ctx, in)
		returned = true
		done <- agentReturn{out: out, err: err}
	})
	return done
}

// judge grades the ended rollout: it reads the final state, refuses what
// no artifact could hold, diffs the state against the initial one, and
// runs the task's verifier.
func (r *rollout) judge(reason string, output json.RawMessage, agentErr error) (*Result, *statediff.Diff, error) {
	if output != nil && r.trace != nil {
		r.trace.add("agent_output", f("output", output))
	}
	finalState, err := r.world.State()
	if err != nil {
		return nil, nil, r.errorf("final %w", err)
	}
	if err := r.checkDepth(output, finalState); err != nil {
		return nil, nil, err
	}
	diff, err := statediff.Compute(r.world.Initial(), finalState)
	if err != nil {
		return nil, nil, r.errorf("state diff: %w", err)
	}
	checks, verr := r.world.Verify(env.VerifyContext{AgentOutput: outputText(output), Task: r.task, Calls: r.s.log})
	result := grade(checks, errors.Join(agentErr, verr), verr)
	s := r.s
	result.ToolCalls, result.ToolErrors = s.calls, s.errors
	result.TerminationReason = reason
	result.Infrastructure = reason == AgentError && env.IsInfrastructure(agentErr)
	result.AgentOutput = output
	if result.AgentOutput == nil {
		result.AgentOutput = json.RawMessage("null")
	}
	if r.trace != nil {
		// (the events' values are made only for a trace that is kept)
		r.trace.add("run_end", f("terminationReason", reason), f("error", result.Error), f("toolCalls", s.calls), f("toolErrors", s.errors), f("durationMs", r.cfg.Clock().Sub(r.started).Milliseconds()))
		r.trace.add("verifier_result", f("verifierId", r.task.VerifierID), f("passed", result.Passed), f("verdict", result.Verdict), f("reward", result.Reward), f("checks", result.Checks))
	}
	return result, diff, nil
}

// checkDepth refuses an output or a final state nested too deep to be an
// artifact, before it is indented (the indentation of deep nesting grows
// with its square). A state whose type bounds its nesting (a ShallowWorld
// that says so) is not scanned.
func (r *rollout) checkDepth(output, finalState json.RawMessage) error {
	stateToScan := []byte(finalState)
	if s, ok := r.world.(env.ShallowWorld); ok && s.ShallowState() {
		stateToScan = nil
	}
	for _, x := range []struct {
		what string
		data []byte
	}{{"the agent's output", output}, {"the final state", stateToScan}} {
		if safeio.Depth(x.data) > safeio.MaxDepth {
			return r.errorf("%s %v; no artifact can hold it", x.what, safeio.ErrTooDeep)
		}
	}
	return nil
}

// outcome is the graded rollout with the bytes of its artifacts: the
// baseline files always, run.json and trace.jsonl unless cfg.ResultOnly.
func (r *rollout) outcome(agent env.Agent, result *Result, diff *statediff.Diff) (*Outcome, error) {
	var finishedAt time.Time
	if !r.cfg.ResultOnly {
		finishedAt = r.cfg.Clock()
	}
	o := &Outcome{RunID: r.runID, Environment: r.e.Name(), Task: r.task, Result: result, Diff: diff}
	var err error
	if o.Artifacts.Result, err = result.Marshal(); err != nil {
		return nil, r.errorf("result.json: %w", err)
	}
	if o.Artifacts.StateDiff, err = diff.Marshal(); err != nil {
		return nil, r.errorf("state-diff.json: %w", err)
	}
	if o.Artifacts.Calls, err = marshalCalls(r.s.log); err != nil {
		return nil, r.errorf("calls.json: %w", err)
	}
	if r.cfg.ResultOnly {
		o.withoutSecrets()
		return o, nil
	}
	if o.Artifacts.Run, err = canon.Marshal(r.info(agent, result.TerminationReason, finishedAt)); err != nil {
		return nil, r.errorf("run.json: %w", err)
	}
	o.Artifacts.Trace = r.trace.Bytes()
	o.withoutSecrets()
	if err := o.Artifacts.checkLimits(); err != nil {
		return nil, r.errorf("%w", err)
	}
	return o, nil
}

// info is the content of run.json, for a rollout that finished at
// finishedAt for reason.
func (r *rollout) info(agent env.Agent, reason string, finishedAt time.Time) RunInfo {
	e, task := r.e, r.task
	info := RunInfo{
		RunID: r.runID, Environment: e.Name(), TaskID: task.ID, Task: task,
		VerifierID: task.VerifierID, VerifierName: verifierName(e, task.VerifierID), Config: r.rc,
		StartedAt: r.started.UTC().Format(time.RFC3339Nano), FinishedAt: finishedAt.UTC().Format(time.RFC3339Nano),
		DurationMs: finishedAt.Sub(r.started).Milliseconds(), TerminationReason: reason, ToolCallCount: r.s.calls,
	}
	// what runner's own agents add: the replay's output file, the exec
	// agent's sandbox
	if src, ok := agent.(outputSource); ok {
		info.AgentOutputFrom = src.OutputFrom()
	}
	if sb, ok := agent.(sandboxed); ok {
		info.Sandbox = sb.SandboxMode()
	}
	return info
}

// sandboxed is an agent contained by a sandbox mode (the exec agent), which
// run.json records.
type sandboxed interface{ SandboxMode() SandboxMode }

// checkLimits holds the artifacts to the limits every reader of them holds
// (safeio.MaxBytes, safeio.MaxDepth), so that what a rollout writes or
// records can be read back.
func (a Artifacts) checkLimits() error {
	// by file name
	for _, f := range []struct {
		name string
		data []byte
	}{{CallsFile, a.Calls}, {ResultFile, a.Result}, {RunFile, a.Run}, {StateDiffFile, a.StateDiff}, {TraceFile, a.Trace}} {
		if err := safeio.CheckLimits(f.data); err != nil {
			return fmt.Errorf("%s %w; the rollout cannot be written or recorded", f.name, err)
		}
	}
	return nil
}

type agentReturn struct {
	out any
	err error
}

// errRolloutOver cancels the tools' context once the runner has decided the
// rollout's end, whatever ended it.
var errRolloutOver = errors.New("the rollout is over")

// outputText is the agent's output as verifiers read it: the string itself,
// the JSON of any other value, or "" when there was none.
func outputText(out json.RawMessage) string {
	if out == nil {
		return ""
	}
	var s string
	if json.Unmarshal(out, &s) == nil {
		return s
	}
	return string(out)
}

func verifierName(e env.Environment, id string) string {
	v, _ := e.Verifier(id)
	return v.Name
}

// newRunID returns run_<UTC timestamp>_<4 random base-36 characters>.
func newRunID(t time.Time) string {
	const alphabet = "0123456789abcdefghijklmnopqrstuvwxyz"
	var b [4]byte
	_, _ = rand.Read(b[:])
	suffix := make([]byte, 4)
	for i := range b {
		suffix[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return "run_" + t.UTC().Format("20060102150405") + "_" + string(suffix)
}
