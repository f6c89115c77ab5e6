package runner

import (
	"context"
	"testing"

	"github.com/agent-oracle/oracle/env"
	"github.com/google/go-cmp/cmp"
)

// TestCallsArtifact fixes calls.json for every kind of call an agent can
// make: a good call, invalid input, an unknown tool, a tool error, input
// that is not JSON, and the call refused because the budget is used up.
// Each entry is what the agent saw; run with -update to rewrite the goldens.
func TestCallsArtifact(t *testing.T) {
	everyKind := env.AgentFunc(func(ctx context.Context, in env.AgentInput) (any, error) {
		in.Call(ctx, "list_counters", nil)
		in.Call(ctx, "set_counter", map[string]any{"id": "X", "value": -1})
		in.Call(ctx, "no_such_tool", map[string]any{"id": "C-1"})
		in.Call(ctx, "set_then_fail", map[string]any{})
		in.Call(ctx, "set_counter", map[string]any{"bad": make(chan int)})
		in.Call(ctx, "set_counter", map[string]any{"id": "C-1", "value": 5})
		in.Call(ctx, "list_counters", nil) // over the budget of 6
		return "done", nil
	})
	tests := []struct {
		name  string
		agent env.Agent
		cfg   Config
	}{
		{"toy.calls.json", solveToy, Config{}},
		{"toy-every-kind.calls.json", everyKind, Config{MaxToolCalls: 6}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newToy(t, toyVerifier(setToFive), nil)
			got := run(t, e, tt.agent, tt.cfg).Artifacts.Calls
			again := run(t, e, tt.agent, tt.cfg).Artifacts.Calls
			if diff := cmp.Diff(string(got), string(again)); diff != "" {
				t.Errorf("calls.json differs between rollouts:\n%s", diff)
			}
			golden(t, tt.name, got)
		})
	}
}
