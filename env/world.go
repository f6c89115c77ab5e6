package env

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"sync"
	"unsafe"

	"github.com/agent-oracle/oracle/internal/canon"
	"github.com/agent-oracle/oracle/internal/gopool"
)

type world[S any] struct {
	env     *environment[S]
	task    Task
	state   *S
	initial json.RawMessage
	// seed is the seed the state was copied from, nil when it came from
	// NewState: what still equals it is not encoded again (see stateJSON)
	seed *seedRecord[S]
	// pristine is the initial state when S is copyable (see Clone); nil
	// otherwise, and the verifier decodes initial. It shares with state
	// every field no tool has been about to write (see detach).
	pristine  *S
	maxOutput int
	// final is the JSON of the state, kept from State until the next call;
	// buf is the environment's buffer it is written in (see Release)
	final    json.RawMessage
	buf      []byte
	released bool
	// graded is set once the verifier has received the world's own states:
	// from then on the world refuses calls and State returns final.
	graded bool
	// abandoned is the state from before a call whose tool did not return
	// before the call's context ended. From then on the world serves that
	// state and refuses calls: w.state is still in the stuck tool's hands
	// and is never read again.
	abandoned json.RawMessage
	// job is the call handed to a goroutine, reused (see toolCall)
	job *toolCall[S]
	// mu guards inflight and abandoned against Abandon, which may come from
	// another goroutine while CallHere runs a tool
	mu       sync.Mutex
	inflight *toolCall[S] // the call whose tool is running, if any
	// own has a bit set for each field whose list no other value refers to
	// (see owned)
	own [2]uint64
}

// boundTool is a tool with its Writes resolved to positions in the
// environment's state fields (writes nil: it may write anywhere): those it
// writes whole, and its member writes (see members.go).
type boundTool[S any] struct {
	*Tool[S]
	writes  []int
	whole   []int
	members []memberWrite
	spec    int // its place in the environment's specs
}

// CanonicalOutputs says that the outputs of Call are JSON as canon.Compact
// writes it, which the runner then need not read again.
func (w *world[S]) CanonicalOutputs() {}

// ShallowState reports whether the JSON State returns is, by the state's
// type, nested at most safeio.MaxDepth deep, which the runner then need not
// scan for.
func (w *world[S]) ShallowState() bool { return w.env.shallow }

func (w *world[S]) Tools() []ToolSpec        { return w.env.Tools() }
func (w *world[S]) Initial() json.RawMessage { return w.initial }

// ToolSpec returns the spec of the tool of that name, which the caller
// reads and does not change: the environment's own, not a copy.
func (w *world[S]) ToolSpec(name string) (ToolSpec, bool) {
	t, ok := w.env.tools[name]
	if !ok {
		return ToolSpec{}, false
	}
	return w.env.specs[t.spec], true
}

func (w *world[S]) HasTool(name string) bool {
	_, ok := w.env.tools[name]
	return ok
}

func (w *world[S]) State() (json.RawMessage, error) {
	if w.abandoned != nil {
		return w.abandoned, nil
	}
	if w.released {
		return nil, errors.New("state of a released world")
	}
	if w.final == nil {
		data, err := w.stateJSON()
		if err != nil {
			return nil, err
		}
		w.final = data
	}
	return w.final, nil
}

// Call runs the tool on a goroutine of its own (see gopool) and waits for
// it or for ctx. A tool still running when ctx ends is abandoned: the world
// keeps the state from before the call (the last consistent one) and is
// closed to calls.
func (w *world[S]) Call(ctx context.Context, name string, input json.RawMessage) (json.RawMessage, error) {
	c, err := w.begin(ctx, name, input)
	if err != nil {
		return nil, err
	}
	gopool.Go(c.run)
	select {
	case <-c.done:
	case <-ctx.Done():
		select {
		case <-c.done: // it returned as the context ended: keep its answer
		default:
			// the goroutine still holds c: it is never used again, as the
			// world takes no more calls
			return nil, w.Abandon()
		}
	}
	return w.end(c)
}

// CallHere is Call run on the caller's goroutine, which saves handing the
// call to another one. It returns only when the tool does, whatever ctx: a
// caller that stops waiting for a call (its rollout is over) gives it up
// with Abandon, from another goroutine. A tool that ends the goroutine
// (runtime.Goexit) is abandoned as it does.
func (w *world[S]) CallHere(ctx context.Context, name string, input json.RawMessage) (json.RawMessage, error) {
	c, err := w.begin(ctx, name, input)
	if err != nil {
		return nil, err
	}
	returned := false
	defer func() {
		if !returned {
			w.Abandon()
		}
	}()
	c.exec()
	returned = true
	return w.end(c)
}

// Abandon gives up the call in flight, if there is one, as Call does when
// its context ends: the world keeps the state from before the call, and
// refuses calls from then on. It returns the call's tool_abandoned error,
// or nil when no tool was running. It may be called from any goroutine
// while CallHere runs; the tool's changes, made or still to come, are
// never read.
func (w *world[S]) Abandon() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	c := w.inflight
	if c == nil {
		return nil
	}
	w.inflight = nil
	w.abandoned = w.abandonedState(c.snap)
	return Errorf("tool_abandoned", "tool %s did not return before the rollout ended (%v); its changes are dropped", c.name, context.Cause(c.ctx))
}

// begin checks that the world takes the call, takes the snapshot to undo
// it and makes it the call in flight.
func (w *world[S]) begin(ctx context.Context, name string, input json.RawMessage) (*toolCall[S], error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.abandoned != nil {
		return nil, Errorf("world_abandoned", "a tool of this rollout never returned; no more tool calls are accepted")
	}
	if w.graded {
		return nil, Errorf("rollout_ended", "the rollout has been graded; no more tool calls are accepted")
	}
	tool, ok := w.env.tools[name]
	if !ok {
		return nil, Errorf("tool_not_found", "Unknown tool %q.", name)
	}
	if err := context.Cause(ctx); err != nil {
		return nil, Errorf("rollout_ended", "tool %s not run: %v", name, err)
	}
	w.final = nil
	snap, err := w.snapshot(tool, input)
	if err != nil {
		return nil, fmt.Errorf("snapshot state before %s: %w", name, err)
	}
	c := w.job
	if c == nil {
		c = &toolCall[S]{done: make(chan struct{}, 1)}
		c.run = c.runTool
		w.job = c
	}
	c.ctx, c.tool, c.name, c.input, c.state, c.snap = ctx, tool, name, input, w.state, snap
	w.inflight = c
	return c, nil
}

// end takes the answer of the call c once its tool returned: the output's
// JSON, or the error, the state as it was before the call.
func (w *world[S]) end(c *toolCall[S]) (out json.RawMessage, err error) {
	w.mu.Lock()
	if w.inflight != c {
		// abandoned while the tool ran: the state is no longer the world's
		w.mu.Unlock()
		return nil, Errorf("tool_abandoned", "tool %s did not return before the rollout ended; its changes are dropped", c.name)
	}
	w.inflight = nil
	w.mu.Unlock()
	tool, name, snap, value, err := c.tool, c.name, c.snap, c.value, c.err
	c.ctx, c.tool, c.input, c.value, c.err, c.snap = nil, nil, nil, nil, nil, snapshot[S]{}
	defer func() {
		if cerr := w.checkDeclaration(tool, snap); cerr != nil {
			err = cerr
		}
		if err != nil && snap.taken() {
			if rerr := w.restore(snap); rerr != nil {
				err = fmt.Errorf("%w (and the state could not be restored: %v)", err, rerr)
			}
		}
	}()
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

// toolCall is a call in flight: a world makes one and reuses it for each of
// its calls, which never overlap. exec sets value and err; run, handed to
// another goroutine by Call, then signals done.
type toolCall[S any] struct {
	ctx   context.Context
	tool  *boundTool[S]
	name  string
	input json.RawMessage
	state *S
	snap  snapshot[S]
	value any
	err   error
	done  chan struct{}
	run   func() // runTool, made once
}

func (c *toolCall[S]) runTool() {
	returned := false
	defer func() {
		if !returned {
			// the tool ended the goroutine (runtime.Goexit): an error, as
			// a panic is, and the state is put back
			c.value, c.err = nil, Errorf("tool_goexit", "tool %s ended its goroutine (runtime.Goexit) without returning", c.name)
		}
		c.done <- struct{}{}
	}()
	c.exec()
	returned = true
}

// exec runs the tool; a panic is its error.
func (c *toolCall[S]) exec() {
	defer func() {
		if r := recover(); r != nil {
			c.value, c.err = nil, &ToolError{Code: "tool_panic", Message: fmt.Sprintf("tool %s panicked: %v", c.name, r),
				Details: map[string]any{"stack": string(debug.Stack())}}
		}
	}()
	c.value, c.err = c.tool.Run(c.ctx, c.state, c.input)
}

// snapshot is the state before a tool call. For a copyable state it is a
// shallow copy (typed): the tool writes on fresh copies of what it
// declares it writes, so the copy still holds everything as it was. For
// any other state it is the state's JSON. In the checked mode it is also
// the JSON of the whole state (to undo any change) and of each field the
// tool must not change (guarded). A read-only tool outside the checked mode
// takes none.
type snapshot[S any] struct {
	typed   *S
	json    []byte
	guarded [][]byte
	// members are the members the call may change, as they were, and own
	// which lists the state owned (see members.go); guards, in the checked
	// mode, the members it must not change
	members []savedMember
	own     [2]uint64
	guards  []memberGuard
}

func (s snapshot[S]) taken() bool { return s.typed != nil || s.json != nil }

func (w *world[S]) snapshot(tool *boundTool[S], input json.RawMessage) (snap snapshot[S], err error) {
	if w.env.def.CheckReadOnly {
		if snap.json, err = json.Marshal(w.state); err != nil {
			return snap, err
		}
		if tool.writes != nil {
			if snap.guarded, err = w.guardedFields(tool.writes); err != nil {
				return snap, err
			}
			if snap.guards, err = w.guardMembers(tool, input); err != nil {
				return snap, err
			}
		}
	}
	if tool.ReadOnly {
		return snap, nil
	}
	if w.env.copyable {
		snap.typed = new(S)
		*snap.typed = *w.state
		snap.own = w.own
		if tool.writes == nil {
			w.detach(nil)
			return snap, nil
		}
		w.detach(tool.whole)
		for i := range tool.members {
			w.detachMember(&tool.members[i], input, &snap)
		}
		return snap, nil
	}
	if snap.json == nil {
		snap.json, err = marshalJSON(w.state)
	}
	return snap, err
}

// abandonedState is the JSON of the state from before a call whose tool
// never returned. A read-only tool took no snapshot: by its declaration the
// state it still holds is the state from before the call.
func (w *world[S]) abandonedState(snap snapshot[S]) json.RawMessage {
	switch {
	case snap.json != nil:
		return snap.json
	case snap.typed != nil:
		before := snap.typed
		if len(snap.members) > 0 {
			before = w.withMembersBefore(snap)
		}
		if data, err := json.Marshal(before); err == nil {
			return data
		}
	}
	data, err := json.Marshal(w.state)
	if err != nil {
		return w.initial
	}
	return data
}

// checkDeclaration, in the checked mode, fails a read-only tool that
// changed the state and a tool that changed a field its Writes does not
// declare, whether the call succeeded or not.
func (w *world[S]) checkDeclaration(tool *boundTool[S], before snapshot[S]) error {
	switch {
	case !w.env.def.CheckReadOnly:
		return nil
	case tool.ReadOnly:
		after, err := json.Marshal(w.state)
		if err != nil {
			return fmt.Errorf("state after read-only tool %s: %w", tool.Name, err)
		}
		if !bytes.Equal(before.json, after) {
			return Errorf("read_only_violated", "tool %s is declared ReadOnly but changed the state; remove ReadOnly from the tool or stop it writing", tool.Name)
		}
	case tool.writes != nil:
		if err := w.checkWrites(tool.Name, before.guarded); err != nil {
			return err
		}
		return w.checkMembers(tool.Name, before.guards)
	}
	return nil
}

// restore puts the state from before the call back; tools hold the
// pointer, so they see the restored state. The JSON, when there is one, is
// the whole truth (in the checked mode a tool may have changed what it
// did not declare); otherwise the shallow copy holds every field as it was,
// since the tool wrote only on copies.
func (w *world[S]) restore(snap snapshot[S]) error {
	if snap.json == nil {
		*w.state = *snap.typed
		w.putMembersBack(snap)
		w.own = snap.own
		return nil
	}
	fresh := new(S)
	if err := json.Unmarshal(snap.json, fresh); err != nil {
		return err
	}
	*w.state = *fresh
	w.ownAll() // decoded afresh: no other value refers to it
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

// verifierStates returns the final and initial states for the verifier,
// which may change them. The first time, when S is copyable, they are the
// world's own state and its pristine initial state, without a copy: the
// JSON of both is taken first (Initial, State), and from then on the world
// refuses calls and State and Initial return that JSON, so what the
// verifier does to them reaches no artifact. The pristine state is the
// environment's NewState of this rollout alone, so it reaches no other
// rollout either. Any other time they are decoded from that JSON.
func (w *world[S]) verifierStates() (final, initial *S, err error) {
	finalJSON, err := w.State()
	if err != nil {
		return nil, nil, err
	}
	if w.pristine != nil && w.abandoned == nil && !w.graded {
		w.graded = true
		return w.state, w.pristine, nil
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

// stateJSON is the JSON of the state, as marshalState makes it: from the
// seed's JSON where the state still equals the seed. It is written in a
// buffer of the environment's, which Release gives back.
func (w *world[S]) stateJSON() (json.RawMessage, error) {
	buf := w.env.buffers.get()
	var out []byte
	var err error
	if l := w.layout(); l != nil {
		out, err = appendStateJSON(slices.Grow(buf, len(l.data)+len(l.data)/8), unsafe.Pointer(w.state), unsafe.Pointer(w.seed.seed), w.env.fields, l)
	} else {
		out, err = appendState(buf, w.state)
	}
	if err != nil {
		w.env.buffers.put(buf)
		return nil, err
	}
	w.buf = out
	// the bytes are shared (State): an append makes a copy
	return slices.Clip(out), nil
}

// layout is the seed's layout the state's JSON is made from, if any.
func (w *world[S]) layout() *seedLayout {
	if w.seed == nil {
		return nil
	}
	return w.seed.layoutIn(w.env)
}

// Release gives the buffer of the JSON State returned back to the
// environment, for the rollouts to come: those bytes must not be read
// after it. The world is done: from then on Call and State fail.
func (w *world[S]) Release() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.released, w.graded = true, true
	if w.buf != nil {
		w.env.buffers.put(w.buf)
		w.buf, w.final = nil, nil
	}
}

func marshalState[S any](s *S) (json.RawMessage, error) {
	data, err := appendState(nil, s)
	if err != nil {
		return nil, err
	}
	// the bytes are shared (a seed's JSON): an append makes a copy
	return slices.Clip(data), nil
}

// appendState appends the JSON of the state, which must be an object.
func appendState[S any](dst []byte, s *S) ([]byte, error) {
	data, err := appendJSON(dst, s)
	if err != nil {
		return nil, fmt.Errorf("state does not marshal to JSON: %w", err)
	}
	if t := bytes.TrimSpace(data[len(dst):]); len(t) == 0 || t[0] != '{' {
		return nil, fmt.Errorf("state marshals to %.20s…, not a JSON object; make the state a struct or a map", t)
	}
	return data, nil
}

// marshalJSON is json.Marshal, without encoding/json for the types canon's
// typed encoders write.
func marshalJSON(v any) ([]byte, error) { return appendJSON(nil, v) }

// appendJSON appends what json.Marshal writes of v.
func appendJSON(dst []byte, v any) ([]byte, error) {
	if data, ok := canon.AppendMarshal(dst, v); ok {
		return data, nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(dst, data...), nil
}
