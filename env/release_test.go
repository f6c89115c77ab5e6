package env

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"testing/fstest"
)

// Worlds of one environment write their final states in buffers given back
// by Release: each still writes its own state whole, whatever the one
// before wrote there, and a released world is done.
func TestReleaseGivesTheBufferBack(t *testing.T) {
	grow := Tool[counters]{Name: "grow", Run: func(_ context.Context, s *counters, _ json.RawMessage) (any, error) {
		for i := range 200 {
			s.Items = append(s.Items, counter{ID: fmt.Sprintf("C-%d", i+3), Value: i})
		}
		return "ok", nil
	}}
	tools := []Tool[counters]{grow, readTool()}
	seed := newCounters()
	seeded, err := New(Definition[counters]{Name: "box", TaskFiles: fstest.MapFS{"tasks/TASK-001.json": {Data: []byte(oneTask)}}, Tools: tools,
		Seed: func(Task) (*counters, error) { return seed, nil }})
	if err != nil {
		t.Fatal(err)
	}
	for name, e := range map[string]Environment{"new state": envOf(t, newCounters, tools, false), "seed": seeded} {
		t.Run(name, func(t *testing.T) { testRelease(t, e) })
	}
}

func testRelease(t *testing.T, e Environment) {
	var grown string
	for i := range 20 {
		w := openTask(t, e)
		want := string(w.Initial())
		if i%2 == 1 {
			if _, err := w.Call(context.Background(), "grow", json.RawMessage(`{}`)); err != nil {
				t.Fatal(err)
			}
			want = grown
		}
		got := state(t, w)
		if i == 1 {
			grown = got
			var s counters
			if err := json.Unmarshal([]byte(got), &s); err != nil || len(s.Items) != 202 {
				t.Fatalf("grown state = %.200s… (%v), want 202 items", got, err)
			}
		} else if got != want {
			t.Fatalf("world %d: state = %.300s…, want %.300s…", i, got, want)
		}
		w.(interface{ Release() }).Release()
		if s, err := w.State(); err == nil {
			t.Fatalf("State after Release = %.100s, want an error", s)
		}
		if _, err := w.Call(context.Background(), "read", json.RawMessage(`{}`)); err == nil {
			t.Fatal("Call after Release succeeded, want an error")
		}
	}
}
