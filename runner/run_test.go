package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agent-oracle/oracle/env"
	"github.com/google/go-cmp/cmp"
)

func run(t *testing.T, e env.Environment, a env.Agent, cfg Config) *Outcome {
	t.Helper()
	o, err := Run(context.Background(), e, toyTask(t, e), a, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestRunIsByteStable(t *testing.T) {
	e := newToy(t, toyVerifier(setToFive), nil)
	a := run(t, e, solveToy, Config{Agent: "toy"})
	b := run(t, e, solveToy, Config{Agent: "toy"})
	if diff := cmp.Diff(string(a.Artifacts.Result), string(b.Artifacts.Result)); diff != "" {
		t.Errorf("result.json differs between rollouts:\n%s", diff)
	}
	if diff := cmp.Diff(string(a.Artifacts.StateDiff), string(b.Artifacts.StateDiff)); diff != "" {
		t.Errorf("state-diff.json differs between rollouts:\n%s", diff)
	}
	if string(a.Artifacts.Run) == string(b.Artifacts.Run) {
		t.Error("run.json is identical across rollouts; it should carry the run id")
	}
	if !a.Result.Passed || a.Result.Reward != 1 || a.Result.TerminationReason != Completed {
		t.Errorf("result = %+v", a.Result)
	}
}

// TestGoldenArtifacts fixes the bytes and key order of result.json and
// state-diff.json. Run with -update to rewrite the golden files.
func TestGoldenArtifacts(t *testing.T) {
	e := newToy(t, toyVerifier(setToFive), nil)
	o := run(t, e, solveToy, Config{Agent: "toy"})
	for name, got := range map[string][]byte{"toy.result.json": o.Artifacts.Result, "toy.state-diff.json": o.Artifacts.StateDiff} {
		golden(t, name, got)
	}
}

// golden compares got with testdata/golden/name, which -update rewrites.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s (-want +got):\n%s", name, diff)
	}
}

func TestMisbehavingAgents(t *testing.T) {
	loop := env.AgentFunc(func(ctx context.Context, in env.AgentInput) (any, error) {
		for {
			in.Call(ctx, "list_counters", nil)
		}
	})
	loopUntilRefused := env.AgentFunc(func(ctx context.Context, in env.AgentInput) (any, error) {
		for {
			if r := in.Call(ctx, "list_counters", nil); r.IsError {
				return "I was stopped", nil
			}
		}
	})
	// blockCalled is set once the blocking agent's call went through
	var blockCalled atomic.Bool
	block := env.AgentFunc(func(ctx context.Context, in env.AgentInput) (any, error) {
		if r := in.Call(ctx, "set_counter", map[string]any{"id": "C-1", "value": 5}); !r.IsError {
			blockCalled.Store(true)
		}
		select {} // ignores cancellation
	})
	panics := env.AgentFunc(func(ctx context.Context, in env.AgentInput) (any, error) {
		in.Call(ctx, "set_counter", map[string]any{"id": "C-1", "value": 5})
		panic("agent bug")
	})
	fails := env.AgentFunc(func(ctx context.Context, in env.AgentInput) (any, error) {
		return nil, errString("model unavailable")
	})
	tests := []struct {
		name      string
		agent     env.Agent
		reason    string
		toolCalls int
		passed    bool
		errSub    string
	}{
		{"loops", loop, MaxToolCalls, 5, false, ""},
		{"loops until refused", loopUntilRefused, MaxToolCalls, 5, false, ""},
		{"blocks and ignores cancellation", block, Timeout, 1, true, ""},
		{"panics", panics, AgentError, 1, true, "agent panicked: agent bug"},
		{"returns an error", fails, AgentError, 0, false, "model unavailable"},
	}
	e := newToy(t, toyVerifier(setToFive), nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// only the agent that blocks is meant to meet the timeout; the
			// others get one a loaded machine cannot reach first
			timeout := time.Minute
			if tt.reason == Timeout {
				timeout = 100 * time.Millisecond
			}
			o := run(t, e, tt.agent, Config{MaxToolCalls: 5, Timeout: timeout, Grace: 20 * time.Millisecond})
			// the agent that blocks must make its call before the timeout;
			// when a loaded machine let the timeout come first, the rollout
			// says nothing of what is tested here: run it again with twice
			// the budget
			for tt.reason == Timeout && !blockCalled.Load() && timeout < time.Minute {
				timeout *= 2
				o = run(t, e, tt.agent, Config{MaxToolCalls: 5, Timeout: timeout, Grace: 20 * time.Millisecond})
			}
			r := o.Result
			if r.TerminationReason != tt.reason || r.ToolCalls != tt.toolCalls {
				t.Errorf("reason %s after %d calls, want %s after %d", r.TerminationReason, r.ToolCalls, tt.reason, tt.toolCalls)
			}
			// the verifier ran whatever happened
			if len(r.Checks) != 2 || r.Checks[0].Passed != tt.passed {
				t.Errorf("checks = %+v, want the verifier's two checks with C-1 passed=%v", r.Checks, tt.passed)
			}
			if string(r.AgentOutput) != "null" {
				t.Errorf("agentOutput = %s, want null for a rollout that did not complete", r.AgentOutput)
			}
			if tt.errSub != "" && (r.Error == nil || !strings.Contains(*r.Error, tt.errSub)) {
				t.Errorf("error = %v, want it to contain %q", r.Error, tt.errSub)
			}
			if len(o.Artifacts.Result) == 0 || !json.Valid(o.Artifacts.Result) {
				t.Error("no valid result.json")
			}
		})
	}
}

func TestInvalidInputListsEveryProblem(t *testing.T) {
	var got env.ToolResult
	agent := env.AgentFunc(func(ctx context.Context, in env.AgentInput) (any, error) {
		got = in.Call(ctx, "set_counter", map[string]any{"id": "X", "value": -1, "extra": true})
		return "done", nil
	})
	e := newToy(t, toyVerifier(setToFive), nil)
	o := run(t, e, agent, Config{})
	if !got.IsError {
		t.Fatalf("invalid call succeeded: %s", got.Output)
	}
	var te struct {
		Code    string `json:"code"`
		Details struct {
			Problems []Problem `json:"problems"`
		} `json:"details"`
	}
	if err := got.Decode(&te); err != nil {
		t.Fatal(err)
	}
	if te.Code != "invalid_input" {
		t.Errorf("code = %s", te.Code)
	}
	pointers := map[string]bool{}
	for _, p := range te.Details.Problems {
		pointers[p.Pointer] = true
	}
	for _, want := range []string{"", "/id", "/value"} {
		if !pointers[want] {
			t.Errorf("no problem at %q in %+v", want, te.Details.Problems)
		}
	}
	if o.Result.ToolErrors != 1 || o.Result.ToolCalls != 1 {
		t.Errorf("toolCalls %d, toolErrors %d", o.Result.ToolCalls, o.Result.ToolErrors)
	}
}

func TestFailingToolsLeaveStateUnchanged(t *testing.T) {
	for _, tool := range []string{"set_then_fail", "set_then_panic", "no_such_tool"} {
		t.Run(tool, func(t *testing.T) {
			var r env.ToolResult
			agent := env.AgentFunc(func(ctx context.Context, in env.AgentInput) (any, error) {
				r = in.Call(ctx, tool, nil)
				return "done", nil
			})
			e := newToy(t, toyVerifier(setToFive), nil)
			o := run(t, e, agent, Config{})
			if !r.IsError {
				t.Fatalf("%s succeeded", tool)
			}
			if !o.Diff.Empty() {
				t.Errorf("state changed after a failed call: %s", o.Artifacts.StateDiff)
			}
		})
	}
}

func TestVerifierErrorsNeverPass(t *testing.T) {
	tests := []struct {
		name  string
		check func(final, initial *toyState, c env.VerifyContext) []env.CheckResult
		want  string
	}{
		{"no required check", func(final, initial *toyState, c env.VerifyContext) []env.CheckResult {
			return []env.CheckResult{env.Optional("looks fine", true, "")}
		}, "returned no required check"},
		{"no checks at all", func(final, initial *toyState, c env.VerifyContext) []env.CheckResult { return nil }, "returned no required check"},
		{"panics", func(final, initial *toyState, c env.VerifyContext) []env.CheckResult { panic("verifier bug") }, "panicked: verifier bug"},
		{"scaffolded", func(final, initial *toyState, c env.VerifyContext) []env.CheckResult {
			return env.NotImplemented("VER-001")
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newToy(t, toyVerifier(tt.check), nil)
			o := run(t, e, solveToy, Config{})
			if o.Result.Passed || o.Result.Verdict != env.Fail {
				t.Fatalf("verdict %s, passed %v: a broken verifier passed", o.Result.Verdict, o.Result.Passed)
			}
			if tt.want != "" && (o.Result.Error == nil || !strings.Contains(*o.Result.Error, tt.want)) {
				t.Errorf("error = %v, want %q", o.Result.Error, tt.want)
			}
		})
	}
}

func TestCallsAfterTheEndAreRefused(t *testing.T) {
	// the agent keeps its Call and uses it once Run has returned
	var call func(ctx context.Context, tool string, input any) env.ToolResult
	agent := env.AgentFunc(func(ctx context.Context, in env.AgentInput) (any, error) {
		call = in.Call
		return "done", nil
	})
	e := newToy(t, toyVerifier(setToFive), nil)
	o := run(t, e, agent, Config{})
	late := call(context.Background(), "set_counter", map[string]any{"id": "C-1", "value": 5})
	if !late.IsError || !strings.Contains(string(late.Output), "rollout_ended") {
		t.Errorf("late call = %s", late.Output)
	}
	if o.Result.Passed {
		t.Error("a call after the end changed the graded state")
	}
}

func TestWriteRun(t *testing.T) {
	e := newToy(t, toyVerifier(setToFive), nil)
	o := run(t, e, solveToy, Config{})
	dir, err := WriteRun(t.TempDir(), o)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range o.Artifacts.Files() {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%s differs from the outcome's bytes", name)
		}
	}
	lines := strings.Split(strings.TrimSpace(string(o.Artifacts.Trace)), "\n")
	var types []string
	for i, line := range lines {
		var ev struct {
			Seq  int    `json:"seq"`
			Type string `json:"type"`
			At   string `json:"at"`
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil || ev.Seq != i+1 || ev.At == "" {
			t.Fatalf("trace line %d = %s (%v)", i+1, line, err)
		}
		types = append(types, ev.Type)
	}
	want := []string{"run_start", "tool_call", "tool_result", "tool_call", "tool_result", "agent_output", "run_end", "verifier_result"}
	if diff := cmp.Diff(want, types); diff != "" {
		t.Errorf("trace event types (-want +got):\n%s", diff)
	}
}

func TestScriptAgentGoesOnAfterFailedCalls(t *testing.T) {
	s := Script{
		Calls: []ScriptCall{
			{Tool: "no_such_tool"},
			{Tool: "set_counter", Input: json.RawMessage(`{"id":"C-7","value":1}`)},
			{Tool: "set_counter", Input: json.RawMessage(`{"id":"C-1","value":5}`)},
		},
		Output: json.RawMessage(`"done"`),
	}
	e := newToy(t, toyVerifier(setToFive), nil)
	o := run(t, e, ScriptAgent(s), Config{})
	if o.Result.ToolCalls != 3 || o.Result.ToolErrors != 2 || !o.Result.Passed || string(o.Result.AgentOutput) != `"done"` {
		t.Errorf("result = %s", o.Artifacts.Result)
	}
}

// A rollout with ResultOnly gives the same result.json and state-diff.json
// as a full one, and builds neither run.json nor trace.jsonl; an agent's Log
// is still safe to call.
func TestResultOnly(t *testing.T) {
	e := newToy(t, toyVerifier(setToFive), nil)
	logging := env.AgentFunc(func(ctx context.Context, in env.AgentInput) (any, error) {
		in.Log("thinking", map[string]any{"about": "C-1"})
		return solveToy(ctx, in)
	})
	full := run(t, e, logging, Config{Agent: "toy"})
	lean := run(t, e, logging, Config{Agent: "toy", ResultOnly: true})
	if diff := cmp.Diff(string(full.Artifacts.Result), string(lean.Artifacts.Result)); diff != "" {
		t.Errorf("result.json differs:\n%s", diff)
	}
	if diff := cmp.Diff(string(full.Artifacts.StateDiff), string(lean.Artifacts.StateDiff)); diff != "" {
		t.Errorf("state-diff.json differs:\n%s", diff)
	}
	if diff := cmp.Diff(string(full.Artifacts.Calls), string(lean.Artifacts.Calls)); diff != "" || lean.Artifacts.Calls == nil {
		t.Errorf("calls.json differs:\n%s", diff)
	}
	if lean.Artifacts.Run != nil || lean.Artifacts.Trace != nil {
		t.Errorf("run.json %q and trace.jsonl %q built with ResultOnly", lean.Artifacts.Run, lean.Artifacts.Trace)
	}
	if !bytes.Contains(full.Artifacts.Trace, []byte(`"type":"thinking"`)) {
		t.Errorf("the full trace lacks the agent's event:\n%s", full.Artifacts.Trace)
	}
}

// Run gives the buffer of the final state's JSON back to the environment
// when it returns, for the next rollouts to write theirs in: nothing of an
// Outcome may hold it, so later rollouts leave an earlier Outcome as it was.
func TestOutcomeOutlivesLaterRollouts(t *testing.T) {
	e := newToy(t, toyVerifier(setToFive), nil)
	o := run(t, e, solveToy, Config{})
	before, err := o.Diff.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	other := env.AgentFunc(func(ctx context.Context, in env.AgentInput) (any, error) {
		in.Call(ctx, "set_counter", map[string]any{"id": "C-2", "value": 123456789})
		return "other", nil
	})
	for range 10 {
		run(t, e, other, Config{})
	}
	after, err := o.Diff.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(before), string(after)); diff != "" {
		t.Errorf("the first rollout's diff changed under later rollouts (-before +after):\n%s", diff)
	}
}
