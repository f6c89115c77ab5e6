package runner_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/fixtures/crm"
	"github.com/agent-oracle/oracle/runner"
	"github.com/google/go-cmp/cmp"
)

// TestReplayOriginalRunFolder replays a run folder in the original
// TypeScript runner's format (testdata/replay/silo-run: its trace.jsonl has
// only tool_call and tool_result events): the answer comes from the
// result.json beside the trace, the run's trace says so, run.json names the
// file, and the replay grades as the original run did.
func TestReplayOriginalRunFolder(t *testing.T) {
	dir := filepath.Join("testdata", "replay", "silo-run")
	tracePath := filepath.Join(dir, "trace.jsonl")
	e, err := crm.New()
	if err != nil {
		t.Fatal(err)
	}
	task, err := env.FindTask(e, "TASK-005")
	if err != nil {
		t.Fatal(err)
	}
	agent, err := runner.Resolve(e, "replay:"+tracePath)
	if err != nil {
		t.Fatal(err)
	}
	o, err := runner.Run(context.Background(), e, task, agent, runner.Config{Agent: "replay:" + tracePath})
	if err != nil {
		t.Fatal(err)
	}
	var original struct {
		Passed      bool            `json:"passed"`
		Reward      float64         `json:"reward"`
		AgentOutput json.RawMessage `json:"agentOutput"`
		ToolCalls   int             `json:"toolCalls"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &original); err != nil {
		t.Fatal(err)
	}
	r := o.Result
	if string(r.AgentOutput) != string(original.AgentOutput) || r.Passed != original.Passed || r.Reward != original.Reward || r.ToolCalls != original.ToolCalls {
		t.Errorf("replay: output %s passed %v reward %v calls %d; the original run: output %s passed %v reward %v calls %d",
			r.AgentOutput, r.Passed, r.Reward, r.ToolCalls, original.AgentOutput, original.Passed, original.Reward, original.ToolCalls)
	}
	if !strings.Contains(string(o.Artifacts.Trace), `"type":"replay_output","at":`) ||
		!strings.Contains(string(o.Artifacts.Trace), `"from":`+quote(filepath.Join(dir, "result.json"))) {
		t.Errorf("the trace does not say where the output came from:\n%s", o.Artifacts.Trace)
	}
	var info runner.RunInfo
	if err := json.Unmarshal(o.Artifacts.Run, &info); err != nil {
		t.Fatal(err)
	}
	if info.AgentOutputFrom != filepath.Join(dir, "result.json") {
		t.Errorf("run.json agentOutputFrom = %q", info.AgentOutputFrom)
	}
	// the calls replay in order with identical inputs and outputs
	calls, err := os.ReadFile(filepath.Join("..", ".silo", "baselines", "crm", "solver", "TASK-005.calls.json"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(calls), string(o.Artifacts.Calls)); diff != "" {
		t.Errorf("calls.json of the replay differs from the solver's (-solver +replay):\n%s", diff)
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestReadBesideOutput: where a trace without agent_output finds its final
// output, and what is refused.
func TestReadBesideOutput(t *testing.T) {
	const toolsOnly = `{"seq":1,"type":"tool_call","at":"2026-04-15T09:30:12.418Z","tool":"list_users","input":{}}` + "\n"
	const withOutput = toolsOnly + `{"seq":2,"type":"agent_output","at":"2026-04-15T09:30:12.419Z","output":"from the trace"}` + "\n"
	result := func(out string) string { return `{"passed":true,"agentOutput":` + out + `,"error":null}` + "\n" }
	tests := []struct {
		name  string
		trace string // file name
		data  string
		files map[string]string
		want  string // the script's output
		from  string // OutputFrom, relative to the folder
		err   string
	}{
		{"result.json beside", "trace.jsonl", toolsOnly, map[string]string{"result.json": result(`"the answer"`)}, `"the answer"`, "result.json", ""},
		{"a JSON answer", "trace.jsonl", toolsOnly, map[string]string{"result.json": result(`{ "total": 507500.00 }`)}, `{"total":507500.00}`, "result.json", ""},
		{"named beside a named trace", "TASK-013.tool-events.json", `[` + strings.TrimSpace(toolsOnly) + `]`,
			map[string]string{"TASK-013.result.json": result(`"named"`), "result.json": result(`"folder"`)}, `"named"`, "TASK-013.result.json", ""},
		{"the trace's own output wins", "trace.jsonl", withOutput, map[string]string{"result.json": result(`"the answer"`)}, `"from the trace"`, "", ""},
		{"no result.json", "trace.jsonl", toolsOnly, nil, "", "", ""},
		{"a null answer", "trace.jsonl", toolsOnly, map[string]string{"result.json": result(`null`)}, "", "", ""},
		{"not JSON", "trace.jsonl", toolsOnly, map[string]string{"result.json": `{"agentOutput": "cut`}, "", "", "is not a result.json"},
		{"an array", "trace.jsonl", toolsOnly, map[string]string{"result.json": `[1]`}, "", "", "is not a result.json"},
		{"a folder", "trace.jsonl", toolsOnly, map[string]string{"result.json/x": "{}"}, "", "", "is not a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, tt.trace)
			os.WriteFile(path, []byte(tt.data), 0o644)
			for name, data := range tt.files {
				os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
				os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644)
			}
			rec, err := runner.ReadTrace(path)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), "result.json") {
					t.Fatalf("ReadTrace = %v, want an error containing %q naming the file", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			from := ""
			if tt.from != "" {
				from = filepath.Join(dir, tt.from)
			}
			if string(rec.Script.Output) != tt.want || rec.OutputFrom != from {
				t.Errorf("output %s from %q, want %s from %q", rec.Script.Output, rec.OutputFrom, tt.want, from)
			}
		})
	}
}

// TestReadBesideOutputSymlink: a result.json that is a symbolic link is not
// followed.
func TestReadBesideOutputSymlink(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(t.TempDir(), "secret.json")
	os.WriteFile(secret, []byte(`{"agentOutput":"outside"}`), 0o644)
	os.WriteFile(filepath.Join(dir, "trace.jsonl"), []byte(`{"seq":1,"type":"tool_call","tool":"x","input":{}}`+"\n"), 0o644)
	if err := os.Symlink(secret, filepath.Join(dir, "result.json")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	if _, err := runner.ReadTrace(filepath.Join(dir, "trace.jsonl")); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("ReadTrace = %v, want a refusal of the link", err)
	}
}
