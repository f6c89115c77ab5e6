package runner

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-oracle/oracle/env"
)

// newStuckToy is the toy world with one more tool, stuck, which changes the
// state and then never returns, ignoring its context, writing to the state
// all the while (so `go test -race` sees any read of the abandoned world).
// It stops only when the test ends. entered is closed when the stuck tool
// starts, so a test can stop the rollout only once the tool is running.
func newStuckToy(t *testing.T) (e env.Environment, entered <-chan struct{}) {
	t.Helper()
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	in := make(chan struct{})
	var once sync.Once
	stuck := env.Tool[toyState]{Name: "stuck", Description: "Never returns.", InputSchema: `{"type":"object"}`,
		Run: func(_ context.Context, s *toyState, _ json.RawMessage) (any, error) {
			once.Do(func() { close(in) })
			for i := 0; ; i++ {
				s.Counters[0].Value = 5 + i%2
				s.Labels["stuck"] = "yes"
				select {
				case <-release:
					return nil, nil
				case <-time.After(time.Millisecond):
				}
			}
		}}
	return newToyWith(t, append(toyTools(), stuck), toyVerifier(setToFive), nil), in
}

// callsStuck sets C-2 (a change that stands), then calls the stuck tool and
// returns once the call comes back, as an agent that reads its results would.
var callsStuck = env.AgentFunc(func(ctx context.Context, in env.AgentInput) (any, error) {
	in.Call(ctx, "set_counter", map[string]any{"id": "C-2", "value": 7})
	r := in.Call(ctx, "stuck", nil)
	return string(r.Output), nil
})

// The timeout is real time, so on a loaded machine it can fire before the
// agent reaches the stuck tool (a rollout that says nothing of stuck tools):
// such a rollout is tried again with twice the timeout, and only a rollout
// whose stuck tool ran is judged, on everything below.
//
// The outcome is the same whether the stuck call runs on an inline agent's
// goroutine (the runner gives it up at the end), or on a goroutine of its
// own, for an agent that is not inline or a world seen only as an
// env.World (the world gives it up when the rollout's context ends).
func TestStuckToolTimesOut(t *testing.T) {
	tests := []struct {
		name  string
		agent env.Agent
		plain bool
	}{
		{"inline agent", env.Inline(callsStuck), false},
		{"agent", callsStuck, false},
		{"inline agent, plain world", env.Inline(callsStuck), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { testStuckToolTimesOut(t, tt.agent, tt.plain) })
	}
}

func testStuckToolTimesOut(t *testing.T, agent env.Agent, plain bool) {
	var o *Outcome
	for timeout := 50 * time.Millisecond; ; timeout *= 2 {
		e, entered := newStuckToy(t)
		if plain {
			e = plainWorlds{e}
		}
		o = run(t, e, agent, Config{Timeout: timeout, Grace: 50 * time.Millisecond})
		if isClosed(entered) {
			break
		}
		if timeout > time.Minute {
			t.Fatalf("the stuck tool never ran before the timeout (last %v)", timeout)
		}
	}
	r := o.Result
	if r.TerminationReason != Timeout {
		t.Errorf("termination reason %s, want %s", r.TerminationReason, Timeout)
	}
	if r.ToolCalls != 2 || r.ToolErrors != 1 {
		t.Errorf("%d calls, %d errors; want 2 calls, the stuck one an error", r.ToolCalls, r.ToolErrors)
	}
	// graded on the state from before the stuck call: C-2's change stands,
	// the stuck tool's writes to C-1 and the labels are dropped
	if len(r.Checks) == 0 || r.Checks[0].Passed {
		t.Errorf("checks = %+v, want C-1 is 5 failed (the stuck tool's write is dropped)", r.Checks)
	}
	diff := string(o.Artifacts.StateDiff)
	if !strings.Contains(diff, "C-2") || strings.Contains(diff, "stuck") || strings.Contains(diff, `"C-1"`) {
		t.Errorf("state diff = %s, want C-2 changed and nothing of the stuck call", diff)
	}
	if !strings.Contains(string(o.Artifacts.Trace), "tool_abandoned") {
		t.Errorf("trace does not say the stuck call was abandoned:\n%s", o.Artifacts.Trace)
	}
}

// plainWorlds opens worlds that have the methods of env.World and no
// other: the runner then calls tools through Call.
type plainWorlds struct{ env.Environment }

func (p plainWorlds) Open(task env.Task) (env.World, error) {
	w, err := p.Environment.Open(task)
	if err != nil {
		return nil, err
	}
	return struct{ env.World }{w}, nil
}

func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

func TestStuckToolDoesNotHoldCancellation(t *testing.T) {
	for name, agent := range map[string]env.Agent{"inline agent": env.Inline(callsStuck), "agent": callsStuck} {
		t.Run(name, func(t *testing.T) {
			e, entered := newStuckToy(t)
			ctx, cancel := context.WithCancelCause(context.Background())
			go func() {
				// cancelled once the stuck tool runs, never before
				<-entered
				cancel(errors.New("interrupted"))
			}()
			_, err := Run(ctx, e, toyTask(t, e), agent, Config{Timeout: time.Hour, Grace: 50 * time.Millisecond})
			if err == nil || !strings.Contains(err.Error(), "interrupted") {
				t.Errorf("err = %v, want the cancellation's cause", err)
			}
		})
	}
}

// An agent that keeps calling after a tool got stuck is refused: the
// abandoned world takes no more calls.
func TestAbandonedWorldRefusesCalls(t *testing.T) {
	e, _ := newStuckToy(t)
	w, err := e.Open(toyTask(t, e))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := w.Call(ctx, "stuck", json.RawMessage(`{}`)); err == nil || !strings.Contains(err.Error(), "tool_abandoned") {
		t.Fatalf("stuck call: %v, want tool_abandoned", err)
	}
	if _, err := w.Call(context.Background(), "list_counters", json.RawMessage(`{}`)); err == nil || !strings.Contains(err.Error(), "world_abandoned") {
		t.Errorf("call after abandon: %v, want world_abandoned", err)
	}
	state, err := w.State()
	if err != nil || strings.Contains(string(state), "stuck") {
		t.Errorf("state = %s, %v; want the state from before the stuck call", state, err)
	}
}

// A tool that ends its goroutine (runtime.Goexit, as t.FailNow does) fails
// its call and leaves the state as it was. Run on an inline agent's
// goroutine it ends that goroutine too: the rollout ends at once as an
// agent error; run on a goroutine of its own, the call is a tool_goexit
// error and the agent goes on. An agent that ends its own goroutine ends
// the rollout at once as an agent error. None waits for the timeout.
func TestGoexitEndsTheRollout(t *testing.T) {
	exits := env.Tool[toyState]{Name: "exits", Description: "Ends its goroutine.", InputSchema: `{"type":"object"}`,
		Run: func(_ context.Context, s *toyState, _ json.RawMessage) (any, error) {
			s.Counters[0].Value = 5
			runtime.Goexit()
			return nil, nil
		}}
	e := newToyWith(t, append(toyTools(), exits), toyVerifier(setToFive), nil)
	callsExits := env.AgentFunc(func(ctx context.Context, in env.AgentInput) (any, error) {
		r := in.Call(ctx, "exits", nil)
		return string(r.Output), nil
	})
	tests := []struct {
		name   string
		agent  env.Agent
		reason string
		output string // in the result, for a completed rollout
	}{
		{"tool on the inline agent's goroutine", env.Inline(callsExits), AgentError, ""},
		{"tool on its own goroutine", callsExits, Completed, "tool_goexit"},
		{"agent", env.AgentFunc(func(ctx context.Context, in env.AgentInput) (any, error) {
			runtime.Goexit()
			return "unreachable", nil
		}), AgentError, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := run(t, e, tt.agent, Config{Timeout: time.Hour})
			r := o.Result
			if r.TerminationReason != tt.reason {
				t.Fatalf("termination %s, result %s; want %s", r.TerminationReason, o.Artifacts.Result, tt.reason)
			}
			if tt.reason == AgentError && (r.Error == nil || !strings.Contains(*r.Error, "Goexit")) {
				t.Errorf("result %s: want its error naming Goexit", o.Artifacts.Result)
			}
			if !strings.Contains(string(r.AgentOutput), tt.output) {
				t.Errorf("agent output %s, want it to hold %q", r.AgentOutput, tt.output)
			}
			if !o.Diff.Empty() {
				t.Errorf("state diff = %s, want none: the call's write is dropped", o.Artifacts.StateDiff)
			}
		})
	}
}
