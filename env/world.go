package env

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"

	"github.com/agent-oracle/oracle/internal/canon"
)

type world[S any] struct {
	env       *environment[S]
	task      Task
	state     *S
	initial   json.RawMessage
	maxOutput int
	// abandoned is the state from before a call whose tool did not return
	// before the call's context ended. From then on the world serves that
	// state and refuses calls: w.state is still in the stuck tool's hands
	// and is never read again.
	abandoned json.RawMessage
}

func (w *world[S]) Tools() []ToolSpec        { return w.env.Tools() }
func (w *world[S]) Initial() json.RawMessage { return w.initial }

func (w *world[S]) HasTool(name string) bool {
	_, ok := w.env.tools[name]
	return ok
}

func (w *world[S]) State() (json.RawMessage, error) {
	if w.abandoned != nil {
		return w.abandoned, nil
	}
	return marshalState(w.state)
}

// Call runs the tool in its own goroutine and waits for it or for ctx. A
// tool still running when ctx ends is abandoned: the world keeps the state
// from before the call (the last consistent one) and is closed to calls.
func (w *world[S]) Call(ctx context.Context, name string, input json.RawMessage) (out json.RawMessage, err error) {
	if w.abandoned != nil {
		return nil, Errorf("world_abandoned", "a tool of this rollout never returned; no more tool calls are accepted")
	}
	tool, ok := w.env.tools[name]
	if !ok {
		return nil, Errorf("tool_not_found", "Unknown tool %q.", name)
	}
	if err := context.Cause(ctx); err != nil {
		return nil, Errorf("rollout_ended", "tool %s not run: %v", name, err)
	}
	before, err := json.Marshal(w.state)
	if err != nil {
		return nil, fmt.Errorf("snapshot state before %s: %w", name, err)
	}
	type ret struct {
		value any
		err   error
	}
	done := make(chan ret, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- ret{err: &ToolError{Code: "tool_panic", Message: fmt.Sprintf("tool %s panicked: %v", name, r),
					Details: map[string]any{"stack": string(debug.Stack())}}}
			}
		}()
		v, err := tool.Run(ctx, w.state, input)
		done <- ret{v, err}
	}()
	var r ret
	select {
	case r = <-done:
	case <-ctx.Done():
		select {
		case r = <-done: // it returned as the context ended: keep its answer
		default:
			w.abandoned = before
			return nil, Errorf("tool_abandoned", "tool %s did not return before the rollout ended (%v); its changes are dropped", name, context.Cause(ctx))
		}
	}
	defer func() {
		if err != nil {
			if rerr := w.restore(before); rerr != nil {
				err = fmt.Errorf("%w (and the state could not be restored: %v)", err, rerr)
			}
		}
	}()
	value, err := r.value, r.err
	if err != nil {
		return nil, err
	}
	out, err = canon.Compact(value)
	if err != nil {
		return nil, Errorf("tool_error", "tool %s returned an output that is not JSON: %v", name, err)
	}
	if len(out) > w.maxOutput {
		return nil, Errorf("output_too_large", "tool %s returned %d bytes of JSON, over the limit of %d", name, len(out), w.maxOutput)
	}
	return out, nil
}

// restore replaces the state's value with the snapshot; tools hold the
// pointer, so they see the restored state.
func (w *world[S]) restore(snapshot []byte) error {
	fresh := new(S)
	if err := json.Unmarshal(snapshot, fresh); err != nil {
		return err
	}
	*w.state = *fresh
	return nil
}

func (w *world[S]) Verify(c VerifyContext) (checks []CheckResult, err error) {
	v, ok := w.env.verifiers[w.task.VerifierID]
	if !ok {
		return nil, fmt.Errorf("no verifier %s registered in environment %s for task %s", w.task.VerifierID, w.env.def.Name, w.task.ID)
	}
	finalJSON, err := w.State()
	if err != nil {
		return nil, err
	}
	final, initial := new(S), new(S)
	if err := json.Unmarshal(finalJSON, final); err != nil {
		return nil, fmt.Errorf("copy final state: %w", err)
	}
	if err := json.Unmarshal(w.initial, initial); err != nil {
		return nil, fmt.Errorf("copy initial state: %w", err)
	}
	defer func() {
		if r := recover(); r != nil {
			checks = nil
			err = fmt.Errorf("verifier %s panicked: %v", v.ID, r)
		}
	}()
	checks = v.Check(final, initial, c)
	if !HasRequired(checks) {
		return checks, fmt.Errorf("verifier %s returned no required check; a task cannot be graded on optional evidence alone", v.ID)
	}
	return checks, nil
}

func marshalState[S any](s *S) (json.RawMessage, error) {
	data, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("state does not marshal to JSON: %w", err)
	}
	if t := bytes.TrimSpace(data); len(t) == 0 || t[0] != '{' {
		return nil, fmt.Errorf("state marshals to %.20s…, not a JSON object; make the state a struct or a map", t)
	}
	return data, nil
}
