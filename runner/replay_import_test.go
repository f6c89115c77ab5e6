package runner_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-oracle/oracle/runner"
	"github.com/google/go-cmp/cmp"
)

// TestWithOutput: a trace whose answer was read from the result.json beside
// it is stored as JSON Lines with that answer as an agent_output event that
// says where it came from, and parses back with the same script.
func TestWithOutput(t *testing.T) {
	const event = `{"type":"agent_output","output":"a & b","from":"run/result.json","why":"the original trace has no agent_output event; this is the agentOutput of the result.json beside it, taken when the trace was imported"}` + "\n"
	tests := []struct {
		name, trace, want string
	}{
		{"lines", `{"type":"tool_call","tool":"t","input":{"a":1}}` + "\n",
			`{"type":"tool_call","tool":"t","input":{"a":1}}` + "\n" + event},
		{"lines without a final newline", `{"type":"tool_call","tool":"t"}`,
			`{"type":"tool_call","tool":"t"}` + "\n" + event},
		{"array", "[\n  {\"type\": \"tool_call\", \"tool\": \"t\"},\n  {\"type\": \"tool_result\", \"tool\": \"t\"}\n]\n",
			`{"type":"tool_call","tool":"t"}` + "\n" + `{"type":"tool_result","tool":"t"}` + "\n" + event},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "trace.jsonl")
			write(t, path, tt.trace)
			write(t, filepath.Join(dir, "result.json"), `{"agentOutput": "a & b"}`)
			rec, err := runner.ReadTrace(path)
			if err != nil {
				t.Fatal(err)
			}
			got, err := runner.WithOutput([]byte(tt.trace), rec, "run/result.json")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("stored trace (-want +got):\n%s", diff)
			}
			again, err := runner.ParseTrace("stored", got)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(rec.Script, again.Script); diff != "" {
				t.Errorf("stored trace replays differently (-read +stored):\n%s", diff)
			}
		})
	}
	// a trace with its own answer is stored as it is
	rec, err := runner.ParseTrace("own", []byte(`{"type":"agent_output","output":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := runner.WithOutput([]byte("same"), rec, "x"); string(got) != "same" {
		t.Errorf("a trace with an answer became %q", got)
	}
}

// TestReadBesideRun: a trace without run_start takes its environment and
// task from the run.json beside it; a run.json that is a link, a folder or
// not JSON is an error naming it; run_start wins over run.json.
func TestReadBesideRun(t *testing.T) {
	bare := `{"type":"tool_call","tool":"t"}` + "\n"
	started := `{"type":"run_start","environment":"calendar","taskId":"TASK-009"}` + "\n" + bare
	run := `{"environment": "crm", "taskId": "TASK-005"}`
	tests := []struct {
		name, trace   string
		setup         func(t *testing.T, runJSON string)
		env, task, by string
		err           string
	}{
		{name: "from run.json", trace: bare, setup: func(t *testing.T, p string) { write(t, p, run) }, env: "crm", task: "TASK-005", by: "run.json"},
		{name: "run_start wins", trace: started, setup: func(t *testing.T, p string) { write(t, p, run) }, env: "calendar", task: "TASK-009"},
		{name: "no run.json", trace: bare, setup: func(*testing.T, string) {}},
		{name: "not JSON", trace: bare, setup: func(t *testing.T, p string) { write(t, p, "{") }, err: "run.json beside it is not a run.json"},
		{name: "a folder", trace: bare, setup: func(t *testing.T, p string) { os.Mkdir(p, 0o755) }, err: "run.json is not a regular file"},
		{name: "a symlink", trace: bare, setup: func(t *testing.T, p string) {
			write(t, p+".real", run)
			if err := os.Symlink(p+".real", p); err != nil {
				t.Skip(err)
			}
		}, err: "run.json is not a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "trace.jsonl")
			write(t, path, tt.trace)
			tt.setup(t, filepath.Join(dir, "run.json"))
			rec, err := runner.ReadTrace(path)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			by := ""
			if rec.TargetFrom != "" {
				by = filepath.Base(rec.TargetFrom)
			}
			if rec.Environment != tt.env || rec.Task != tt.task || by != tt.by {
				t.Errorf("got %q %q by %q, want %q %q by %q", rec.Environment, rec.Task, by, tt.env, tt.task, tt.by)
			}
		})
	}
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
