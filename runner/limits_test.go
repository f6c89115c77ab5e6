package runner

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"
	"unicode/utf8"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/internal/safeio"
)

// A rollout whose artifacts would exceed the limits the readers hold is an
// error of the run, never artifacts that check would then refuse; deep
// nesting is refused before it is indented.
func TestArtifactsHoldTheReadersLimits(t *testing.T) {
	nested := func(depth int, leaf string) json.RawMessage {
		return json.RawMessage(strings.Repeat("[", depth) + leaf + strings.Repeat("]", depth))
	}
	tests := []struct {
		name   string
		output json.RawMessage
		fails  bool
	}{
		{"nested 900 deep", nested(900, `"x"`), false},
		{"nested 1,500 deep", nested(1500, `"x"`), true},
		{"20 KB nested 9,990 deep", nested(9990, `"`+strings.Repeat("x", 20<<10)+`"`), true},
	}
	e := newToy(t, toyVerifier(setToFive), nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			agent := env.AgentFunc(func(ctx context.Context, in env.AgentInput) (any, error) { return tt.output, nil })
			o, err := Run(context.Background(), e, toyTask(t, e), agent, Config{})
			if !tt.fails {
				if err != nil {
					t.Fatal(err)
				}
				for name, data := range o.Artifacts.Files() {
					if err := safeio.CheckLimits(data); err != nil {
						t.Errorf("%s: %v", name, err)
					}
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), "nested too deep") {
				t.Errorf("err = %v, want the output named as nested too deep", err)
			}
		})
	}
}

// Bytes from an agent that are not UTF-8 (its output, a tool input) reach
// every artifact as U+FFFD.
func TestArtifactsAreUTF8(t *testing.T) {
	e := newToy(t, toyVerifier(setToFive), nil)
	agent := env.AgentFunc(func(ctx context.Context, in env.AgentInput) (any, error) {
		in.Call(ctx, "set_counter", json.RawMessage("{\"id\":\"C-\xff\",\"value\":5}"))
		return json.RawMessage("\"done\xfe\""), nil
	})
	o := run(t, e, agent, Config{})
	for name, data := range o.Artifacts.Files() {
		if !utf8.Valid(data) {
			t.Errorf("%s is not valid UTF-8", name)
		}
	}
	if !strings.Contains(string(o.Artifacts.Result), "done\uFFFD") || !strings.Contains(string(o.Artifacts.Trace), "C-\uFFFD") {
		t.Errorf("the invalid bytes are not U+FFFD:\n%s\n%s", o.Artifacts.Result, o.Artifacts.Trace)
	}
}

// nestState can nest without bound: its type does not bound its depth, so
// the runner scans its JSON.
type nestState struct {
	Root nestNode `json:"root"`
}

type nestNode struct {
	Kids []nestNode `json:"kids"`
}

// A final state nested deeper than the readers' limit is refused, whether
// the state's type is recursive or holds raw JSON.
func TestDeepFinalStateIsRefused(t *testing.T) {
	deepen := func(_ context.Context, s *nestState, _ json.RawMessage) (any, error) {
		n := &s.Root
		for range 1200 {
			n.Kids = []nestNode{{}}
			n = &n.Kids[0]
		}
		return "deeper", nil
	}
	e, err := env.New(env.Definition[nestState]{
		Name: "nest",
		TaskFiles: fstest.MapFS{
			"tasks/TASK-001.json": {Data: []byte(`{"id":"TASK-001","title":"Nest","instruction":"Nest.","verifierId":"VER-001"}`)},
		},
		NewState: func(env.Task) (*nestState, error) { return &nestState{}, nil },
		Tools:    []env.Tool[nestState]{{Name: "deepen", Description: "Nests.", Run: deepen}},
		Verifiers: []env.Verifier[nestState]{{ID: "VER-001", TaskID: "TASK-001", Name: "any",
			Check: func(_, _ *nestState, _ env.VerifyContext) []env.CheckResult {
				return []env.CheckResult{env.Check("ran", true, "")}
			}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	agent := env.AgentFunc(func(ctx context.Context, in env.AgentInput) (any, error) {
		if r := in.Call(ctx, "deepen", nil); r.IsError {
			return nil, errString(r.Output)
		}
		return "done", nil
	})
	_, err = Run(context.Background(), e, toyTask(t, e), agent, Config{ResultOnly: true})
	if err == nil || !strings.Contains(err.Error(), "final state is nested too deep") {
		t.Errorf("err = %v, want the final state named as nested too deep", err)
	}
}
