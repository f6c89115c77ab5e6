package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-oracle/oracle/env"
	"github.com/google/go-cmp/cmp"
)

// TestReplayIsByteIdentical: replaying the trace.jsonl a rollout wrote gives
// the rollout's result.json and state-diff.json byte for byte.
func TestReplayIsByteIdentical(t *testing.T) {
	t.Parallel()
	e := newToy(t, toyVerifier(setToFive), map[string]env.Agent{"solver": solveToy})
	task := toyTask(t, e)
	orig, err := Run(context.Background(), e, task, solveToy, Config{Agent: "solver"})
	if err != nil {
		t.Fatal(err)
	}
	dir, err := WriteRun(t.TempDir(), orig)
	if err != nil {
		t.Fatal(err)
	}
	ref := "replay:" + filepath.Join(dir, TraceFile)
	agent, err := Resolve(e, ref)
	if err != nil {
		t.Fatal(err)
	}
	replayed, err := Run(context.Background(), e, task, agent, Config{Agent: ref})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(orig.Artifacts.Result), string(replayed.Artifacts.Result)); diff != "" {
		t.Errorf("result.json of the replay differs (-run +replay):\n%s", diff)
	}
	if diff := cmp.Diff(string(orig.Artifacts.StateDiff), string(replayed.Artifacts.StateDiff)); diff != "" {
		t.Errorf("state-diff.json of the replay differs (-run +replay):\n%s", diff)
	}
	rec, err := ReadTrace(filepath.Join(dir, TraceFile))
	if err != nil {
		t.Fatal(err)
	}
	if rec.Environment != "toy" || rec.Task != "TASK-001" || len(rec.Script.Calls) != 2 || string(rec.Script.Output) != `"done"` {
		t.Errorf("recording = %+v", rec)
	}
}

// TestReplayOriginalRunnerTrace reads the JSON array of events the original
// TypeScript runner wrote. Its tools do not exist in the toy environment:
// each call fails now, is passed on as the error it is, and the replay goes
// on.
func TestReplayOriginalRunnerTrace(t *testing.T) {
	t.Parallel()
	path := filepath.Join("testdata", "replay", "TASK-013.tool-events.json")
	rec, err := ReadTrace(path)
	if err != nil {
		t.Fatal(err)
	}
	var tools []string
	for _, c := range rec.Script.Calls {
		tools = append(tools, c.Tool)
	}
	want := []string{"get_vendor_invoice", "update_vendor_invoice_line", "get_vendor_invoice", "list_audit_events", "get_vendor_invoice", "definitely_not_a_tool"}
	if diff := cmp.Diff(want, tools); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	if got := string(rec.Script.Calls[1].Input); got != `{"vendorInvoiceId":"VINV-103","lineId":"VINV-103-L1","unitPrice":82,"actorUserId":"USR-006"}` {
		t.Errorf("input = %s", got)
	}
	if rec.Script.Output != nil || rec.Environment != "" {
		t.Errorf("recording = %+v", rec)
	}
	e := newToy(t, toyVerifier(setToFive), nil)
	o := run(t, e, ScriptAgent(rec.Script), Config{})
	if o.Result.ToolCalls != 6 || o.Result.ToolErrors != 6 || o.Result.TerminationReason != Completed {
		t.Errorf("result = %+v", o.Result)
	}
}

// TestReplayGoesOnAfterAFailedCall: a recorded call that fails now is passed
// on as an error, and the calls after it still run.
func TestReplayGoesOnAfterAFailedCall(t *testing.T) {
	t.Parallel()
	trace := `{"seq":1,"type":"run_start","runId":"r","environment":"toy","task":{"id":"TASK-001"}}
{"seq":2,"type":"tool_call","callId":1,"tool":"set_counter","input":{"id":"C-7","value":5}}
{"seq":3,"type":"tool_result","callId":1,"tool":"set_counter","output":{"id":"C-7","value":5}}
{"seq":4,"type":"tool_call","callId":2,"tool":"set_counter","input":{"id":"C-1","value":5}}
{"seq":5,"type":"agent_stderr","stderr":"ignored\n"}
{"seq":6,"type":"agent_output","output":"done"}
`
	rec, err := ParseTrace("t.jsonl", []byte(trace))
	if err != nil {
		t.Fatal(err)
	}
	o := run(t, newToy(t, toyVerifier(setToFive), nil), ScriptAgent(rec.Script), Config{})
	if !o.Result.Passed || o.Result.ToolCalls != 2 || o.Result.ToolErrors != 1 || string(o.Result.AgentOutput) != `"done"` {
		t.Errorf("result = %+v", o.Result)
	}
}

func TestReplayErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	tests := []struct {
		name, path, want string
	}{
		{"missing", filepath.Join(dir, "nope.jsonl"), "nope.jsonl: no such file or directory"},
		{"folder", dir, "is not a regular file (it is a folder)"},
		{"empty", write("empty.jsonl", "\n \n"), "empty.jsonl: the file is empty"},
		{"garbage line", write("garbage.jsonl", `{"type":"run_start"}`+"\n"+`{"type":"tool_call","tool":"x"}`+"\nnot json\n"), "garbage.jsonl:3: not JSON: invalid character 'o' in literal null"},
		{"not an object", write("array.jsonl", "[1,\n2]\n"), "array.jsonl:1: a JSON number, not an event object"},
		{"no type", write("notype.jsonl", `{"tool":"x"}`+"\n"), "notype.jsonl:1: event has no type"},
		{"call without tool", write("notool.jsonl", "\n"+`{"type":"tool_call","input":{}}`), "notool.jsonl:2: tool_call event has no tool"},
		{"array garbage", write("bad.json", "[\n  {\"type\":\"tool_call\",\"tool\":\"x\"},\n  {\"type\": nope}\n]"), "bad.json:3: not JSON"},
		{"array element", write("elem.json", "[\n  {\"type\":\"tool_call\",\"tool\":\"x\"},\n\n  {\"type\":\"tool_call\"}\n]"), "elem.json:4: tool_call event has no tool"},
		{"array trailing", write("trail.json", "[]\n[]"), "trail.json:2: data after the array of events"},
		{"no events", write("other.jsonl", `{"type":"something_else"}`), "other.jsonl: no run_start, tool_call or agent_output event"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadTrace(tt.path)
			if err == nil {
				t.Fatalf("ReadTrace(%s) succeeded", tt.path)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "replay") {
				t.Errorf("error = %q\nwant it to contain %q", err, tt.want)
			}
		})
	}
}

// TestResolveNamesEveryReference checks that an unknown agent's error lists
// every kind of reference the resolver takes, its schemes included.
func TestResolveNamesEveryReference(t *testing.T) {
	t.Parallel()
	none := func(string) (env.Agent, error) { return nil, errors.New("unused") }
	r := Resolver{Schemes: map[string]func(string) (env.Agent, error){"openai": none, "anthropic": none}}
	tests := []struct {
		agents map[string]env.Agent
		want   string
	}{
		{map[string]env.Agent{"solver": solveToy}, "agent_not_found: no agent nobody in toy; built-in agents: solver, or exec:COMMAND, module:PATH, python:PATH, replay:PATH, anthropic:ARG or openai:ARG"},
		{nil, "agent_not_found: no agent nobody in toy, which has no built-in agents; use exec:COMMAND, module:PATH, python:PATH, replay:PATH, anthropic:ARG or openai:ARG"},
	}
	for _, tt := range tests {
		_, err := r.Resolve(newToy(t, toyVerifier(setToFive), tt.agents), "nobody")
		if err == nil || err.Error() != tt.want {
			t.Errorf("Resolve(nobody) error = %v, want %q", err, tt.want)
		}
	}
}

func TestResolve(t *testing.T) {
	t.Parallel()
	e := newToy(t, toyVerifier(setToFive), map[string]env.Agent{"solver": solveToy})
	trace := filepath.Join(t.TempDir(), "t.jsonl")
	os.WriteFile(trace, []byte(`{"type":"agent_output","output":"done"}`), 0o644)
	tests := []struct {
		ref, wantErr string
		notFound     bool // the error is an *env.Error with code agent_not_found
	}{
		{"solver", "", false},
		{"exec:true", "", false},
		{"replay:" + trace, "", false},
		{"nobody", "agent_not_found: no agent nobody in toy; built-in agents: solver, or exec:COMMAND, module:PATH, python:PATH or replay:PATH", true},
		{"exec:  ", "exec: names no command", true},
		{"replay:", "replay: names no trace", true},
		{"replay:/nonexistent/t.jsonl", "replay: open /nonexistent/t.jsonl: no such file or directory", false},
	}
	for _, tt := range tests {
		a, err := Resolve(e, tt.ref)
		switch {
		case tt.wantErr == "" && (err != nil || a == nil):
			t.Errorf("Resolve(%q) = %v, %v", tt.ref, a, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("Resolve(%q) error = %v, want %q", tt.ref, err, tt.wantErr)
		}
		var coded *env.Error
		if got := errors.As(err, &coded) && coded.Code == env.CodeAgentNotFound; got != tt.notFound {
			t.Errorf("Resolve(%q) error %v: coded agent_not_found = %v, want %v", tt.ref, err, got, tt.notFound)
		}
	}
}
