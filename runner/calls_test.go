package runner

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/internal/canon"
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

// calls.json, indented piece by piece from the session's canonical JSON,
// is byte for byte what canon.Marshal writes for the same calls, whatever
// the tool name and the JSON an agent sends or a tool returns (spacing,
// escapes, line separators, invalid UTF-8, nesting).
func FuzzMarshalCalls(f *testing.F) {
	f.Add("get_entity", `{"id": "E-1", "n": [1, {"a": null}]}`, `{"ok":true,"list":[]}`, false)
	f.Add("bad\u2028name\"", " [ ] ", `{"code":"x","message":"a\u2028b \ufffd \xff"}`, true)
	f.Add("", `"s"`, `{}`, false)
	f.Fuzz(func(t *testing.T, tool, input, output string, isErr bool) {
		in, ok := canonical(json.RawMessage(input))
		if !ok {
			return
		}
		out, ok := canonical(json.RawMessage(output))
		if !ok {
			return
		}
		s := &session{}
		s.recordCall(tool, in, out, isErr)
		s.recordCall(tool, nil, nil, false)
		s.recordCall("second", out, in, !isErr)
		want, err := canon.Marshal(s.log)
		if err != nil {
			t.Fatal(err)
		}
		got, err := marshalCalls(s.log)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Fatalf("marshalCalls:\n%s\ncanon.Marshal:\n%s", got, want)
		}
	})
}

// notJSONWorld is a world of another implementation whose tools answer
// with bytes that are not JSON.
type notJSONWorld struct {
	env.World
	out string
}

func (w notJSONWorld) Call(ctx context.Context, name string, input json.RawMessage) (json.RawMessage, error) {
	return json.RawMessage(w.out), nil
}

type notJSONEnv struct {
	env.Environment
	out string
}

func (e notJSONEnv) Open(task env.Task) (env.World, error) {
	w, err := e.Environment.Open(task)
	return notJSONWorld{w, e.out}, err
}

// A tool output that is not JSON, from a world the runner does not know,
// fails the rollout at calls.json rather than being written into it.
func TestCallsRefuseOutputThatIsNotJSON(t *testing.T) {
	for _, out := range []string{`{"a":`, `{"a":}`, `nope`, `[1 2]`, "\"\x01\"", `{"a":1]`} {
		for _, resultOnly := range []bool{false, true} {
			e := notJSONEnv{newToy(t, toyVerifier(setToFive), nil), out}
			o, err := Run(context.Background(), e, toyTask(t, e), solveToy, Config{ResultOnly: resultOnly})
			if err == nil || !strings.Contains(err.Error(), "calls.json: output of call 1") {
				t.Errorf("output %q: error %v, outcome %v; want calls.json's error", out, err, o)
			}
		}
	}
}

// A verifier's context holds the rollout's calls as calls.json records
// them, failed ones included: a path invariant ("C-2 is never read before
// C-1 is set") is checked from them, which no state shows.
func TestVerifierSeesTheCalls(t *testing.T) {
	var seen []Call
	readC1First := func(final, initial *toyState, c env.VerifyContext) []env.CheckResult {
		seen = c.Calls
		setAt := slices.IndexFunc(c.Calls, func(x Call) bool { return x.Tool == "set_counter" && x.Output != nil })
		return []env.CheckResult{env.Check("set after listing", setAt > 0 && c.Calls[0].Tool == "list_counters", "")}
	}
	e := newToy(t, toyVerifier(readC1First), nil)
	o := run(t, e, solveToy, Config{Agent: "toy"})
	if !o.Result.Passed {
		t.Errorf("result %+v", o.Result)
	}
	got, err := canon.Marshal(seen)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(o.Artifacts.Calls), string(got)); diff != "" {
		t.Errorf("the verifier's calls differ from calls.json:\n%s", diff)
	}
}
