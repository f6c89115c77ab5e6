package env

import (
	"context"
	"encoding/json"
	"runtime"
	"testing"
)

// abandoner is a world's Abandon, which the runner finds by assertion.
type abandoner interface{ Abandon() error }

func readTool() Tool[counters] {
	return Tool[counters]{Name: "read", ReadOnly: true, Run: func(context.Context, *counters, json.RawMessage) (any, error) { return "ok", nil }}
}

// A call running on the caller's goroutine is given up by Abandon from
// another goroutine: the world keeps the state from before the call and
// refuses calls, and what the tool does once it returns at last reaches
// nothing (go test -race sees any read of what it writes).
func TestAbandonGivesUpACallHere(t *testing.T) {
	for _, checked := range []bool{false, true} {
		entered, release := make(chan struct{}), make(chan struct{})
		stuck := Tool[counters]{Name: "stuck", Run: func(_ context.Context, s *counters, _ json.RawMessage) (any, error) {
			s.Items[0].Value = 42
			close(entered)
			<-release
			s.Items[1].Value = 43
			s.Labels["stuck"] = "yes"
			return "done", nil
		}}
		w := worldOf(t, newCounters, []Tool[counters]{stuck, readTool()}, checked)
		before := state(t, w)
		if err := w.(abandoner).Abandon(); err != nil {
			t.Fatalf("Abandon with no call in flight: %v, want nil", err)
		}
		got := make(chan error, 1)
		go func() {
			_, err := callers["here"](w, context.Background(), "stuck", json.RawMessage(`{}`))
			got <- err
		}()
		<-entered
		if err := w.(abandoner).Abandon(); AsToolError(err).Code != "tool_abandoned" {
			t.Fatalf("Abandon of the stuck call: %v, want tool_abandoned", err)
		}
		if after := state(t, w); after != before {
			t.Errorf("state after Abandon = %s, want the state from before the call, %s", after, before)
		}
		if err := w.(abandoner).Abandon(); err != nil {
			t.Errorf("second Abandon: %v, want nil (no call in flight)", err)
		}
		close(release)
		if err := <-got; AsToolError(err).Code != "tool_abandoned" {
			t.Errorf("the abandoned call returned %v, want tool_abandoned", err)
		}
		if after := state(t, w); after != before {
			t.Errorf("state once the tool returned = %s, want %s", after, before)
		}
		for how, call := range callers {
			if _, err := call(w, context.Background(), "read", json.RawMessage(`{}`)); AsToolError(err).Code != "world_abandoned" {
				t.Errorf("%s after Abandon: %v, want world_abandoned", how, err)
			}
		}
	}
}

// A tool that ends the goroutine Call runs it on (runtime.Goexit, as
// t.FailNow does) fails the call as a panic does: the state is as before
// and the world takes calls.
func TestGoexitInCallIsAnError(t *testing.T) {
	w, before := exitingWorld(t)
	if _, err := w.Call(context.Background(), "exits", json.RawMessage(`{}`)); AsToolError(err).Code != "tool_goexit" {
		t.Fatalf("Call = %v, want tool_goexit", err)
	}
	if after := state(t, w); after != before {
		t.Errorf("state = %s, want the state from before the call, %s", after, before)
	}
	if _, err := w.Call(context.Background(), "read", json.RawMessage(`{}`)); err != nil {
		t.Errorf("call after: %v", err)
	}
}

// A tool that ends the caller's goroutine under CallHere is abandoned as
// it does: the world keeps the state from before.
func TestGoexitInCallHereAbandonsTheCall(t *testing.T) {
	w, before := exitingWorld(t)
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		_, _ = callers["here"](w, context.Background(), "exits", json.RawMessage(`{}`))
		t.Error("CallHere returned from a tool that ended its goroutine")
	}()
	<-ended
	if after := state(t, w); after != before {
		t.Errorf("state = %s, want the state from before the call, %s", after, before)
	}
	if _, err := w.Call(context.Background(), "read", json.RawMessage(`{}`)); AsToolError(err).Code != "world_abandoned" {
		t.Errorf("call after the goroutine ended: %v, want world_abandoned", err)
	}
}

// exitingWorld is a world with a tool, exits, that writes and then ends its
// goroutine, and its state before any call.
func exitingWorld(t *testing.T) (World, string) {
	t.Helper()
	exits := Tool[counters]{Name: "exits", Run: func(_ context.Context, s *counters, _ json.RawMessage) (any, error) {
		s.Items[0].Value = 42
		runtime.Goexit()
		return nil, nil
	}}
	w := worldOf(t, newCounters, []Tool[counters]{exits, readTool()}, false)
	return w, state(t, w)
}
