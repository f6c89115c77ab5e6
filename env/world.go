package env

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"runtime/debug"

	"github.com/agent-oracle/oracle/internal/canon"
)

type world[S any] struct {
	env     *environment[S]
	task    Task
	state   *S
	initial json.RawMessage
	// pristine is a typed copy of the initial state when S is copyable
	// (see Clone); nil otherwise, and the verifier decodes initial.
	pristine  *S
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
	// a read-only tool needs no snapshot, unless its declaration is checked
	var snap snapshot[S]
	check := tool.ReadOnly && w.env.def.CheckReadOnly
	if !tool.ReadOnly || check {
		if snap, err = w.snapshot(check); err != nil {
			return nil, fmt.Errorf("snapshot state before %s: %w", name, err)
		}
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
			w.abandoned = w.abandonedState(snap)
			return nil, Errorf("tool_abandoned", "tool %s did not return before the rollout ended (%v); its changes are dropped", name, context.Cause(ctx))
		}
	}
	defer func() {
		if check && err == nil {
			err = w.checkUnchanged(name, snap)
		}
		if err != nil && snap.taken() {
			if rerr := w.restore(snap); rerr != nil {
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

// snapshot is the state before a tool call: a typed deep copy when S is
// copyable, its JSON otherwise (and always when asJSON is set, for the
// read-only check).
type snapshot[S any] struct {
	typed *S
	json  []byte
}

func (s snapshot[S]) taken() bool { return s.typed != nil || s.json != nil }

func (w *world[S]) snapshot(asJSON bool) (snapshot[S], error) {
	if !asJSON && copyable(reflect.TypeFor[S]()) {
		c := new(S)
		deepCopy(reflect.ValueOf(c).Elem(), reflect.ValueOf(w.state).Elem())
		return snapshot[S]{typed: c}, nil
	}
	data, err := json.Marshal(w.state)
	if err != nil {
		return snapshot[S]{}, err
	}
	return snapshot[S]{json: data}, nil
}

// abandonedState is the JSON of the state from before a call whose tool
// never returned. A read-only tool took no snapshot: by its declaration the
// state it still holds is the state from before the call.
func (w *world[S]) abandonedState(snap snapshot[S]) json.RawMessage {
	switch {
	case snap.json != nil:
		return snap.json
	case snap.typed != nil:
		if data, err := json.Marshal(snap.typed); err == nil {
			return data
		}
	}
	data, err := json.Marshal(w.state)
	if err != nil {
		return w.initial
	}
	return data
}

// checkUnchanged fails a read-only tool that changed the state.
func (w *world[S]) checkUnchanged(name string, before snapshot[S]) error {
	after, err := json.Marshal(w.state)
	if err != nil {
		return fmt.Errorf("state after read-only tool %s: %w", name, err)
	}
	if !bytes.Equal(before.json, after) {
		return Errorf("read_only_violated", "tool %s is declared ReadOnly but changed the state; remove ReadOnly from the tool or stop it writing", name)
	}
	return nil
}

// restore replaces the state's value with the snapshot; tools hold the
// pointer, so they see the restored state.
func (w *world[S]) restore(snap snapshot[S]) error {
	if snap.typed != nil {
		*w.state = *snap.typed
		return nil
	}
	fresh := new(S)
	if err := json.Unmarshal(snap.json, fresh); err != nil {
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
	final, initial, err := w.verifierStates()
	if err != nil {
		return nil, err
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

// verifierStates returns copies of the final and initial states for the
// verifier, which may change them: typed deep copies when S is copyable,
// JSON round trips otherwise.
func (w *world[S]) verifierStates() (final, initial *S, err error) {
	if w.pristine != nil && w.abandoned == nil {
		final, initial = new(S), new(S)
		deepCopy(reflect.ValueOf(final).Elem(), reflect.ValueOf(w.state).Elem())
		deepCopy(reflect.ValueOf(initial).Elem(), reflect.ValueOf(w.pristine).Elem())
		return final, initial, nil
	}
	finalJSON, err := w.State()
	if err != nil {
		return nil, nil, err
	}
	final, initial = new(S), new(S)
	if err := json.Unmarshal(finalJSON, final); err != nil {
		return nil, nil, fmt.Errorf("copy final state: %w", err)
	}
	if err := json.Unmarshal(w.initial, initial); err != nil {
		return nil, nil, fmt.Errorf("copy initial state: %w", err)
	}
	return final, initial, nil
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
