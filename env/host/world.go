package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agent-oracle/oracle/env"
)

// world is one rollout's world in a host. Its state lives in the host; the
// world keeps the initial state's JSON, the calls that succeeded (to
// rebuild the state in a fresh host after a stuck tool) and the final
// state's JSON once read.
type world struct {
	env  *Environment
	id   int64
	task env.Task
	c    *conn // the host holding the state; nil once released

	initial json.RawMessage
	final   json.RawMessage // the state's JSON, until the next call
	done    []pastCall

	// broken is set when the host failed the world: every later request
	// gets it.
	broken error
	// abandoned is set when a tool did not return before its rollout
	// ended: its host was stopped, and the world is rebuilt in another
	// one, from the calls before, when next read. The world takes no more
	// calls.
	abandoned bool
	stuck     bool // abandoned once, and so closed to calls for good
	graded    bool
	released  bool
}

type pastCall struct {
	tool  string
	input json.RawMessage
}

// open opens the world in a host of the pool.
func (w *world) open() error {
	c, err := w.env.pool.take()
	if err != nil {
		return err
	}
	initial, err := w.openIn(c)
	if err != nil {
		w.env.pool.give(c)
		return err
	}
	w.c, w.initial = c, initial
	return nil
}

// openIn opens the world in c and returns its initial state.
func (w *world) openIn(c *conn) (json.RawMessage, error) {
	m, err := c.ask(context.Background(), w.env.cfg.Timeout, func(id int64) ([]byte, error) {
		return request("open", id, "world", w.id, "task", w.task)
	})
	if err != nil {
		return nil, fmt.Errorf("open a world for %s: %w", w.task.ID, err)
	}
	if m.Type == "opened" && m.Same {
		if initial := c.initial(w.task.ID, nil); initial != nil {
			return initial, nil
		}
		err = errors.New("it answered an open with the same initial state as before, but it sent none before for this task")
	} else {
		err = isState(m, "opened")
	}
	if err != nil {
		c.fail(fmt.Errorf("%s: %w", c.p.what, err))
		return nil, fmt.Errorf("open a world for %s: %w", w.task.ID, err)
	}
	return c.initial(w.task.ID, m.State), nil
}

// isState checks an answer that carries a state.
func isState(m *message, typ string) error {
	if m.Type != typ {
		return fmt.Errorf("it answered a request for %s with a %s message", typ, m.Type)
	}
	if s := bytes.TrimSpace(m.State); len(s) == 0 || s[0] != '{' {
		return errors.New("its state is not a JSON object")
	}
	return nil
}

func (w *world) Tools() []env.ToolSpec { return w.env.Tools() }

// ToolSpec returns the environment's own spec of the tool called name,
// which the caller does not change.
func (w *world) ToolSpec(name string) (env.ToolSpec, bool) {
	i, ok := w.env.byName[name]
	if !ok {
		return env.ToolSpec{}, false
	}
	return w.env.tools[i], true
}

func (w *world) HasTool(name string) bool {
	_, ok := w.env.byName[name]
	return ok
}

func (w *world) Initial() json.RawMessage { return w.initial }

// Call runs a tool in the host and waits for its answer or for ctx. A tool
// that has not answered when ctx ends is abandoned: its host is stopped
// (nothing else can interrupt it), the call returns tool_abandoned, and
// the state from before the call is rebuilt in a fresh host when the
// runner reads it.
func (w *world) Call(ctx context.Context, name string, input json.RawMessage) (json.RawMessage, error) {
	switch {
	case w.broken != nil:
		return nil, w.broken
	case w.stuck:
		return nil, env.Errorf("world_abandoned", "a tool of this rollout never returned; no more tool calls are accepted")
	case w.graded, w.released:
		return nil, env.Errorf("rollout_ended", "the rollout has been graded; no more tool calls are accepted")
	case !w.HasTool(name):
		return nil, env.Errorf("tool_not_found", "Unknown tool %q.", name)
	}
	if err := context.Cause(ctx); err != nil {
		return nil, env.Errorf("rollout_ended", "tool %s not run: %v", name, err)
	}
	w.final = nil
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	m, err := w.c.ask(ctx, 0, func(id int64) ([]byte, error) {
		return request("call", id, "world", w.id, "tool", name, "input", input)
	})
	if errors.Is(err, errGaveUp) {
		w.abandon(fmt.Errorf("tool %s did not return before the rollout ended", name))
		return nil, env.Errorf("tool_abandoned", "tool %s did not return before the rollout ended (%v); its changes are dropped", name, context.Cause(ctx))
	}
	if err == nil && m.Type != "result" {
		err = fmt.Errorf("%s answered a call with a %s message", w.c.p.what, m.Type)
		w.c.fail(err)
	}
	if err != nil {
		w.broken = fmt.Errorf("call %s: %w", name, err)
		return nil, w.broken
	}
	if m.IsError {
		return nil, toolError(m.Output)
	}
	w.done = append(w.done, pastCall{name, input})
	if len(m.Output) == 0 {
		return json.RawMessage("null"), nil
	}
	return m.Output, nil
}

// abandon stops the host of a stuck call.
func (w *world) abandon(why error) {
	w.stuck = true
	w.c.stop(fmt.Errorf("%s was stopped: %w", w.c.p.what, why))
	w.leave()
}

// leave gives up the world's host, which oracle stopped: the world is
// rebuilt in another one when next read.
func (w *world) leave() {
	w.abandoned = true
	w.env.pool.give(w.c)
	w.c = nil
}

// rebuild opens the world again in a fresh host and replays the calls that
// succeeded, after a stuck tool stopped the host it was in.
func (w *world) rebuild() error {
	c, err := w.env.pool.take()
	if err != nil {
		return err
	}
	if _, err := w.openIn(c); err != nil {
		w.env.pool.give(c)
		return err
	}
	for i, call := range w.done {
		m, err := c.ask(context.Background(), w.env.cfg.Timeout, func(id int64) ([]byte, error) {
			return request("call", id, "world", w.id, "tool", call.tool, "input", call.input)
		})
		if err == nil && (m.Type != "result" || m.IsError) {
			err = fmt.Errorf("call %d (%s) failed this time; the environment is not deterministic", i+1, call.tool)
		}
		if err != nil {
			w.env.pool.give(c)
			return fmt.Errorf("rebuild the state from before the stuck tool: %w", err)
		}
	}
	w.c, w.abandoned = c, false
	return nil
}

// ready makes sure the world is in a working host.
func (w *world) ready() error {
	if w.broken != nil {
		return w.broken
	}
	if w.released {
		return errors.New("the world was released")
	}
	if !w.abandoned && w.c.broken() != nil && w.c.stoppedOnPurpose() {
		// stopped for another's sake (an agent module stuck in the same
		// host), not for a fault of this world
		w.stuck = true
		w.leave()
	}
	if w.abandoned {
		if err := w.rebuild(); err != nil {
			w.broken = err
			return err
		}
	}
	return nil
}

// ask sends a request about the world to its host, once the world is in
// a working one, and again in another when oracle stopped its host on
// purpose while it waited (an agent module stuck there).
func (w *world) ask(build func(id int64) ([]byte, error)) (*message, error) {
	if err := w.ready(); err != nil {
		return nil, err
	}
	m, err := w.c.ask(context.Background(), w.env.cfg.Timeout, build)
	if err != nil && !errors.Is(err, errGaveUp) && w.c.stoppedOnPurpose() {
		w.stuck = true
		w.leave()
		if err := w.ready(); err != nil {
			return nil, err
		}
		m, err = w.c.ask(context.Background(), w.env.cfg.Timeout, build)
	}
	return m, err
}

func (w *world) State() (json.RawMessage, error) {
	if w.final != nil {
		return w.final, nil
	}
	m, err := w.ask(func(id int64) ([]byte, error) {
		return request("state", id, "world", w.id)
	})
	if err == nil {
		if err = isState(m, "state"); err != nil {
			w.c.fail(fmt.Errorf("%s: %w", w.c.p.what, err))
		}
	}
	if err != nil {
		w.broken = fmt.Errorf("state: %w", err)
		return nil, w.broken
	}
	w.final = m.State
	return w.final, nil
}

// Verify grades the world with the task's verifier in the host. A verifier
// that throws, returns something other than checks, or no required check,
// is an error, as for an environment of Go; one that has not returned
// within the timeout stops its host.
func (w *world) Verify(vc env.VerifyContext) ([]env.CheckResult, error) {
	id := w.task.VerifierID
	if _, ok := w.env.Verifier(id); !ok {
		return nil, fmt.Errorf("no verifier %s registered in environment %s for task %s", id, w.env.cfg.Name, w.task.ID)
	}
	w.graded = true
	calls := vc.Calls
	if calls == nil {
		calls = []env.Call{}
	}
	m, err := w.ask(func(rid int64) ([]byte, error) {
		return request("verify", rid, "world", w.id, "agentOutput", vc.AgentOutput, "calls", calls)
	})
	var he *Error
	switch {
	case errors.Is(err, errGaveUp):
		w.c.fail(fmt.Errorf("%s was stopped: verifier %s did not return", w.c.p.what, id))
		return nil, fmt.Errorf("verifier %s did not return within %v; its host was stopped", id, w.env.cfg.Timeout)
	case errors.As(err, &he):
		return nil, errors.New(he.Message)
	case err != nil:
		return nil, fmt.Errorf("verifier %s: %w", id, err)
	case m.Type != "verified":
		w.c.fail(fmt.Errorf("%s answered a verify with a %s message", w.c.p.what, m.Type))
		return nil, fmt.Errorf("verifier %s: %w", id, w.c.broken())
	}
	checks, err := checkResults(id, m.Checks)
	if err != nil {
		return nil, err
	}
	if !env.HasRequired(checks) {
		return checks, fmt.Errorf("verifier %s returned no required check; a task cannot be graded on optional evidence alone", id)
	}
	return checks, nil
}

// Release closes the world in its host and gives its place back: runner.Run
// calls it when the rollout is over.
func (w *world) Release() {
	if w.released {
		return
	}
	w.released = true
	if w.c == nil {
		return
	}
	if w.c.broken() == nil {
		if id, _, err := w.c.send(func(id int64) ([]byte, error) { return request("close", id, "world", w.id) }); err == nil {
			w.c.forget(id) // nothing waits for the closed answer
		}
	}
	w.env.pool.give(w.c)
}
