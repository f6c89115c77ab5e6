package runner

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"sync"
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
	if r, ok := world.(releaser); ok {
		// no artifact holds the final state's bytes: they are read to diff
		// and grade, and given back at the end
		defer r.Release()
	}
	started := cfg.Clock()
	runID := newRunID(started)
	var trace *Trace // nil: no trace is kept
	if !cfg.ResultOnly {
		trace = newTrace(cfg.Clock)
	}
	rc := RunConfig{MaxToolCalls: cfg.MaxToolCalls, TimeoutMs: cfg.Timeout.Milliseconds(), Agent: cfg.Agent}
	tools := world.Tools()
	if trace != nil {
		trace.add("run_start", f("runId", runID), f("environment", e.Name()), f("task", task), f("config", rc), f("tools", toolsJSON(e.Name(), tools)))
	}

	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	_, canonicalOutputs := world.(interface{ CanonicalOutputs() })
	s := &session{world: world, trace: trace, max: cfg.MaxToolCalls, clock: cfg.Clock,
		ctx: actx, slot: make(chan struct{}, 1), canonical: canonicalOutputs}
	if _, ok := agent.(interface{ InlineCalls() }); ok {
		s.here, _ = world.(callerRunner)
	}
	if src, ok := world.(specSource); ok {
		s.specOf = src.ToolSpec
	} else {
		s.specs = slices.Clone(tools)
	}
	s.stop = func(reason error) { cancel(reason) }
	timer := time.AfterFunc(cfg.Timeout, func() { s.end(env.ErrTimeout) })
	defer timer.Stop()

	done := make(chan agentReturn, 1)
	gopool.Go(func() {
		returned := false
		defer func() {
			if r := recover(); r != nil {
				// the stack goes to the trace only: result.json stays byte-stable
				trace.add("agent_panic", f("panic", fmt.Sprint(r)), f("stack", string(debug.Stack())))
				done <- agentReturn{err: fmt.Errorf("agent panicked: %v", r)}
			} else if !returned {
				done <- agentReturn{err: errors.New("the agent's goroutine ended (runtime.Goexit) before the agent returned")}
			}
		}()
		out, err := agent.Run(actx, env.AgentInput{Task: task.Instruction, Tools: tools, Call: s.call, Log: trace.log})
		returned = true
		done <- agentReturn{out: out, err: err}
	})

	var ret agentReturn
	finished := false
	select {
	case ret = <-done:
		finished = true
	case <-actx.Done():
	}
	reason, output, agentErr := s.finish(ret, finished)
	// the rollout is over: a tool still running sees its context end, and
	// the world is read below only once no call is in flight (a stuck tool
	// is abandoned and the world keeps the state from before its call)
	cancel(errRolloutOver)
	s.quiesce()
	if reason != Completed && !finished {
		// give a stopped agent a grace period to return, then abandon it
		select {
		case <-done:
		case <-time.After(cfg.Grace):
		}
	}
	if reason == "" {
		// the caller cancelled the rollout: no result
		return nil, fmt.Errorf("run %s %s: %w", e.Name(), task.ID, context.Cause(ctx))
	}

	if output != nil && trace != nil {
		trace.add("agent_output", f("output", output))
	}
	finalState, err := world.State()
	if err != nil {
		return nil, fmt.Errorf("run %s %s: final %w", e.Name(), task.ID, err)
	}
	// what is nested too deep to be an artifact is refused before it is
	// indented (the indentation of deep nesting grows with its square); a
	// state whose type bounds its nesting need not be scanned
	stateToScan := []byte(finalState)
	if s, ok := world.(interface{ ShallowState() bool }); ok && s.ShallowState() {
		stateToScan = nil
	}
	for _, x := range []struct {
		what string
		data []byte
	}{{"the agent's output", output}, {"the final state", stateToScan}} {
		if safeio.Depth(x.data) > safeio.MaxDepth {
			return nil, fmt.Errorf("run %s %s: %s %v; no artifact can hold it", e.Name(), task.ID, x.what, safeio.ErrTooDeep)
		}
	}
	diff, err := statediff.Compute(world.Initial(), finalState)
	if err != nil {
		return nil, fmt.Errorf("run %s %s: state diff: %w", e.Name(), task.ID, err)
	}
	checks, verr := world.Verify(env.VerifyContext{AgentOutput: outputText(output), Task: task})
	result := grade(checks, errors.Join(agentErr, verr), verr)
	result.ToolCalls, result.ToolErrors = s.calls, s.errors
	result.TerminationReason = reason
	result.AgentOutput = output
	if result.AgentOutput == nil {
		result.AgentOutput = json.RawMessage("null")
	}
	if trace != nil {
		// (the events' values are made only for a trace that is kept)
		trace.add("run_end", f("terminationReason", reason), f("error", result.Error), f("toolCalls", s.calls), f("toolErrors", s.errors), f("durationMs", cfg.Clock().Sub(started).Milliseconds()))
		trace.add("verifier_result", f("verifierId", task.VerifierID), f("passed", result.Passed), f("verdict", result.Verdict), f("reward", result.Reward), f("checks", result.Checks))
	}

	var finishedAt time.Time
	if !cfg.ResultOnly {
		finishedAt = cfg.Clock()
	}
	o := &Outcome{RunID: runID, Environment: e.Name(), Task: task, Result: result, Diff: diff}
	if o.Artifacts.Result, err = result.Marshal(); err != nil {
		return nil, fmt.Errorf("run %s %s: result.json: %w", e.Name(), task.ID, err)
	}
	if o.Artifacts.StateDiff, err = diff.Marshal(); err != nil {
		return nil, fmt.Errorf("run %s %s: state-diff.json: %w", e.Name(), task.ID, err)
	}
	if o.Artifacts.Calls, err = marshalCalls(s.log); err != nil {
		return nil, fmt.Errorf("run %s %s: calls.json: %w", e.Name(), task.ID, err)
	}
	if cfg.ResultOnly {
		o.withoutSecrets()
		return o, nil
	}
	info := RunInfo{
		RunID: runID, Environment: e.Name(), TaskID: task.ID, Task: task,
		VerifierID: task.VerifierID, VerifierName: verifierName(e, task.VerifierID), Config: rc,
		StartedAt: started.UTC().Format(time.RFC3339Nano), FinishedAt: finishedAt.UTC().Format(time.RFC3339Nano),
		DurationMs: finishedAt.Sub(started).Milliseconds(), TerminationReason: reason, ToolCallCount: s.calls,
	}
	if src, ok := agent.(outputSource); ok {
		info.AgentOutputFrom = src.OutputFrom()
	}
	if sb, ok := agent.(interface{ SandboxMode() SandboxMode }); ok {
		info.Sandbox = sb.SandboxMode()
	}
	if o.Artifacts.Run, err = canon.Marshal(info); err != nil {
		return nil, fmt.Errorf("run %s %s: run.json: %w", e.Name(), task.ID, err)
	}
	o.Artifacts.Trace = trace.Bytes()
	o.withoutSecrets()
	if err := o.Artifacts.checkLimits(); err != nil {
		return nil, fmt.Errorf("run %s %s: %w", e.Name(), task.ID, err)
	}
	return o, nil
}

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

// session is the runner's side of one rollout: it serialises tool calls,
// counts them against the budget, and refuses calls once the rollout ended.
// mu guards the bookkeeping only and is never held while a tool runs, so
// the timer and the runner can always end the rollout; slot lets one call
// at a time reach the world.
type session struct {
	mu    sync.Mutex
	world env.World
	trace *Trace
	// specOf finds a tool's spec in a world that lends them (see
	// specSource); otherwise specs are the tools, the session's own copy
	// (an agent may change the list it is given), and byName indexes a
	// long list of them (see spec)
	specOf func(name string) (env.ToolSpec, bool)
	specs  []env.ToolSpec
	byName map[string]int
	clock  func() time.Time
	max    int
	calls  int
	errors int
	log    []Call // calls.json, in the order the calls were taken
	ended  bool
	reason error // why the rollout was stopped, if it was
	stop   func(reason error)
	ctx    context.Context // the rollout's context, given to tools
	slot   chan struct{}   // held by the call in flight; taken for good by the runner at the end
	// here is set when the world runs calls on the agent's goroutine (see
	// callerRunner); flight is then the call taken last, settled the id
	// of the last call recorded, and dropped the id of a call the runner
	// gave up and recorded itself (see quiesce)
	here    callerRunner
	flight  flight
	settled int
	dropped int
	// canonical is set when the world's outputs are canonical JSON (it has
	// CanonicalOutputs), as the session's own tool errors are
	canonical bool
}

// end stops the rollout for reason unless it has already ended.
func (s *session) end(reason error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return
	}
	s.ended, s.reason = true, reason
	s.stop(reason)
}

// finish ends the rollout and decides its termination reason. A budget
// exhausted before the agent returned wins over the agent's return, so the
// reason does not depend on goroutine scheduling. It returns "" when the
// caller's context was cancelled.
func (s *session) finish(ret agentReturn, finished bool) (reason string, output json.RawMessage, agentErr error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	stopped := s.reason
	s.ended = true
	switch {
	case stopped != nil:
		return env.StopReason(stopped), nil, nil
	case !finished:
		return "", nil, nil
	case ret.err != nil:
		return AgentError, nil, fmt.Errorf("agent error: %w", ret.err)
	}
	out, err := outputJSON(ret.out)
	if err != nil {
		return AgentError, nil, fmt.Errorf("agent output is not JSON: %w", err)
	}
	return Completed, out, nil
}

// call is AgentInput.Call.
func (s *session) call(ctx context.Context, tool string, input any) env.ToolResult {
	raw, marshalErr := inputJSON(input)
	if raw == nil && marshalErr == nil {
		raw = json.RawMessage(`{}`)
	}
	select {
	case s.slot <- struct{}{}:
		defer func() { <-s.slot }()
	case <-s.ctx.Done():
		s.mu.Lock()
		defer s.mu.Unlock()
		return errorResult(s.endedError())
	}
	s.mu.Lock()
	if s.ended {
		defer s.mu.Unlock()
		return errorResult(s.endedError())
	}
	if s.calls >= s.max {
		defer s.mu.Unlock()
		s.ended, s.reason = true, env.ErrMaxToolCalls
		s.stop(env.ErrMaxToolCalls)
		// the refused call is what the agent saw last: calls.json keeps it
		res := errorResult(budgetError(s.max))
		s.recordCall(tool, validJSON(raw, marshalErr), res.Output, true)
		return res
	}
	s.calls++
	c := flight{id: s.calls, tool: tool, input: validJSON(raw, marshalErr)}
	if s.trace != nil {
		s.trace.add("tool_call", f("callId", c.id), f("tool", tool), f("input", rawOrString(raw, marshalErr)))
		c.start = s.clock()
	}
	s.flight = c
	s.mu.Unlock()

	out, isErr := s.run(tool, raw, marshalErr)
	// the output is made canonical once (a world env.New made writes it
	// so); the trace and calls.json then take it as it is
	var traced any = out
	if s.canonical {
		traced = canon.Compacted(out)
	} else if c, ok := canonical(out); ok {
		out, traced = c, canon.Compacted(c)
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dropped == c.id {
		// given up at the rollout's end (see quiesce), and recorded then
		return env.ToolResult{Output: out, IsError: true}
	}
	s.settle(c, out, traced, isErr)
	return env.ToolResult{Output: out, IsError: isErr}
}

// flight is a call taken, for its record once it returns.
type flight struct {
	id    int
	tool  string
	input json.RawMessage // as calls.json records it
	start time.Time       // for the trace only
}

// settle counts and records the answer of call c; s.mu is held.
func (s *session) settle(c flight, out json.RawMessage, traced any, isErr bool) {
	s.settled = c.id
	if isErr {
		s.errors++
	}
	s.recordCall(c.tool, c.input, out, isErr)
	if s.trace != nil {
		s.trace.add("tool_result", f("callId", c.id), f("tool", c.tool), f("output", traced), f("isError", isErr), f("durationMs", s.clock().Sub(c.start).Milliseconds()))
	}
}

// callerRunner is a world that runs a call on the caller's goroutine (a
// world env.New made is one), which the runner uses for an inline agent
// (env.Inline): a call then costs no hand-over to another goroutine and
// back. A tool that does not return holds the agent's goroutine, which the
// runner abandons anyway; Abandon then gives the call up (see quiesce).
type callerRunner interface {
	CallHere(ctx context.Context, name string, input json.RawMessage) (json.RawMessage, error)
	Abandon() error
}

// quiesce returns once no call can reach the world any more: the runner
// takes the slot for good, as soon as the call in flight, if any, returns.
// A call whose tool is still running on the agent's goroutine is given up
// instead: the world keeps the state from before it, and the call is
// recorded as the agent would have been told, tool_abandoned; the agent's
// goroutine, which may return from it later, then records nothing.
func (s *session) quiesce() {
	if s.here != nil {
		select {
		case s.slot <- struct{}{}:
			return
		default:
		}
		if err := s.here.Abandon(); err != nil {
			s.mu.Lock()
			defer s.mu.Unlock()
			// unless the tool returned in the meantime and its call was
			// recorded with the world's tool_abandoned error
			if s.settled != s.flight.id {
				out := toolErrorJSON(env.AsToolError(err))
				s.dropped = s.flight.id
				s.settle(s.flight, out, canon.Compacted(out), true)
			}
			return
		}
	}
	s.slot <- struct{}{}
}

// endedError is what a call made after the end is told; s.mu is held.
func (s *session) endedError() *env.ToolError {
	return env.Errorf("rollout_ended", "the rollout has ended (%s); no more tool calls are accepted", reasonText(s.reason))
}

func (s *session) run(tool string, input json.RawMessage, marshalErr error) (json.RawMessage, bool) {
	spec, ok := s.spec(tool)
	if !ok {
		return toolErrorJSON(env.Errorf("tool_not_found", "Unknown tool %q.", tool)), true
	}
	if marshalErr != nil {
		return toolErrorJSON(invalidInput(tool, []Problem{{Message: "input does not marshal to JSON: " + marshalErr.Error()}})), true
	}
	if te := validateInput(spec, input); te != nil {
		return toolErrorJSON(te), true
	}
	var out json.RawMessage
	var err error
	if s.here != nil {
		out, err = s.here.CallHere(s.ctx, tool, input)
	} else {
		out, err = s.world.Call(s.ctx, tool, input)
	}
	if err != nil {
		return toolErrorJSON(env.AsToolError(err)), true
	}
	return out, false
}

// releaser is a world that gives back, when the rollout is done with it,
// the buffer of the final state's JSON (a world env.New made is one).
type releaser interface{ Release() }

// specSource is a world that lends the specs of its tools by name, which
// the session then need not copy (a world env.New made is one).
type specSource interface {
	ToolSpec(name string) (env.ToolSpec, bool)
}

// spec returns the spec of the tool of that name; of two, the last. A
// short list is searched, a long one indexed at the first call.
func (s *session) spec(name string) (env.ToolSpec, bool) {
	if s.specOf != nil {
		return s.specOf(name)
	}
	const searched = 64
	if len(s.specs) <= searched {
		for i := len(s.specs) - 1; i >= 0; i-- {
			if s.specs[i].Name == name {
				return s.specs[i], true
			}
		}
		return env.ToolSpec{}, false
	}
	if s.byName == nil {
		s.byName = make(map[string]int, len(s.specs))
		for i, t := range s.specs {
			s.byName[t.Name] = i
		}
	}
	i, ok := s.byName[name]
	if !ok {
		return env.ToolSpec{}, false
	}
	return s.specs[i], true
}

func errorResult(te *env.ToolError) env.ToolResult {
	return env.ToolResult{Output: toolErrorJSON(te), IsError: true}
}

func toolErrorJSON(te *env.ToolError) json.RawMessage {
	b, err := canon.Compact(te)
	if err != nil {
		b, _ = canon.Compact(env.ToolError{Code: te.Code, Message: te.Message})
	}
	return b
}

func reasonText(err error) string {
	if r := env.StopReason(err); r != "" {
		return r
	}
	return "completed"
}

// rawOrString is the input a trace records: the canonical JSON inputJSON
// made, or the error when there was none.
func rawOrString(raw json.RawMessage, err error) any {
	if err != nil {
		return fmt.Sprintf("%v", err)
	}
	if raw == nil {
		return raw
	}
	return canon.Compacted(raw)
}

// validJSON is the input calls.json records: the JSON, or nil when the
// input did not marshal.
func validJSON(raw json.RawMessage, err error) json.RawMessage {
	if err != nil {
		return nil
	}
	return raw
}

func inputJSON(input any) (json.RawMessage, error) {
	switch v := input.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		if c, ok := canonical(v); ok {
			return c, nil
		}
		return nil, errors.New("input is not valid JSON")
	case []byte:
		if c, ok := canonical(v); ok {
			return c, nil
		}
		return nil, errors.New("input is not valid JSON")
	}
	return canon.Compact(input)
}

func outputJSON(out any) (json.RawMessage, error) {
	switch v := out.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		if !json.Valid(v) {
			return nil, errors.New("output is not valid JSON")
		}
		return v, nil
	}
	return canon.Compact(out)
}

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
