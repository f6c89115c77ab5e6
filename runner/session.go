package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/internal/canon"
)

// session is the runner's side of one rollout: it serialises tool calls,
// counts them against the budget, and refuses calls once the rollout ended.
// mu guards the bookkeeping only and is never held while a tool runs, so
// the timer and the runner can always end the rollout; slot lets one call
// at a time reach the world.
type session struct {
	mu    sync.Mutex
	world env.World
	trace *Trace
	// specOf finds a tool's spec in a world that lends them (an
	// env.SpecWorld); otherwise specs are the tools, the session's own copy
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
	// here is set when the world runs calls on the agent's goroutine (an
	// env.InlineWorld, for an env.InlineAgent); flight is then the call taken last, settled the id
	// of the last call recorded, and dropped the id of a call the runner
	// gave up and recorded itself (see quiesce)
	here    env.InlineWorld
	flight  flight
	settled int
	dropped int
	// canonical is set when the world's outputs are canonical JSON (an
	// env.CanonicalWorld), as the session's own tool errors are
	canonical bool
}

// newSession is the session of agent's rollout in world, whose tools
// are tools, given ctx: the fast paths world and agent offer (see
// env.CanonicalWorld, env.InlineWorld, env.SpecWorld) are taken here.
func newSession(ctx context.Context, world env.World, agent env.Agent, tools []env.ToolSpec, trace *Trace, cfg Config) *session {
	_, canonical := world.(env.CanonicalWorld)
	s := &session{world: world, trace: trace, max: cfg.MaxToolCalls, clock: cfg.Clock,
		ctx: ctx, slot: make(chan struct{}, 1), canonical: canonical}
	if _, ok := agent.(env.InlineAgent); ok {
		s.here, _ = world.(env.InlineWorld)
	}
	if src, ok := world.(env.SpecWorld); ok {
		s.specOf = src.ToolSpec
	} else {
		s.specs = slices.Clone(tools)
	}
	return s
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
