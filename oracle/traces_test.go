package oracle

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/oracle/report"
	"github.com/agent-oracle/oracle/runner"
	"github.com/google/go-cmp/cmp"
)

// solverTrace runs the ledger's solver on task and writes its trace.jsonl
// into a run folder under dir; it returns the file.
func solverTrace(t *testing.T, e env.Environment, task, dir string) string {
	t.Helper()
	tk, err := env.FindTask(e, task)
	if err != nil {
		t.Fatal(err)
	}
	solver, _ := e.Agent("solver")
	o, err := runner.Run(context.Background(), e, tk, solver, runner.Config{Agent: "solver"})
	if err != nil {
		t.Fatal(err)
	}
	runDir, err := runner.WriteRun(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(runDir, runner.TraceFile)
}

// TestReplayCaseLifecycle: a trace imported into the project is a case that
// record freezes and check finds unchanged, without being named again.
func TestReplayCaseLifecycle(t *testing.T) {
	project := t.TempDir()
	e := newLedger(t, ledgerOpts{})
	envs := []env.Environment{e}
	trace := solverTrace(t, e, "TASK-002", filepath.Join(project, runner.RunsDir))

	k, stored, err := ImportTrace(project, envs, trace, "", "")
	if err != nil {
		t.Fatal(err)
	}
	runID := filepath.Base(filepath.Dir(trace))
	want := baseline.Key{Env: "ledger", Agent: "replay-" + runID, Task: "TASK-002"}
	if k != want {
		t.Fatalf("key = %v, want %v", k, want)
	}
	if want := filepath.Join(project, TracesDir, "ledger", k.Agent, "TASK-002.trace.jsonl"); stored != want {
		t.Errorf("stored in %s, want %s", stored, want)
	}
	if b, err := os.ReadFile(stored); err != nil || !strings.Contains(string(b), `"type":"tool_call"`) {
		t.Fatalf("stored trace %s: %v", stored, err)
	}
	// importing the same trace again is a no-op
	if k2, _, err := ImportTrace(project, envs, trace, "ledger", "TASK-002"); err != nil || k2 != k {
		t.Fatalf("second import: %v, %v", k2, err)
	}

	cases, err := traceCases(project, envs, Selection{})
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 1 || cases[0].Key != k || cases[0].AgentRef != "replay:"+stored {
		t.Fatalf("cases = %+v", cases)
	}
	store := baseline.Open(project)
	sel := Selection{}
	rep, err := Record(context.Background(), store, streamOf(cases), sel, RecordOptions{})
	if err != nil || rep.Count(RecordWrote) != 1 {
		t.Fatalf("record: %+v, %v", rep, err)
	}
	res, err := checkAll(context.Background(), store, streamOf(cases), sel, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := statuses(res.Report); got[k.String()] != report.StatusUnchanged {
		t.Errorf("check statuses = %v", got)
	}
	// the replay's baseline is the solver's rollout, byte for byte
	solverSel := Selection{Agents: []string{"solver"}, Tasks: []string{"TASK-002"}}
	if _, err := Record(context.Background(), store, selected(t, solverSel, envs...).Cases, solverSel, RecordOptions{}); err != nil {
		t.Fatal(err)
	}
	a, _ := store.Read(k)
	b, _ := store.Read(baseline.Key{Env: "ledger", Agent: "solver", Task: "TASK-002"})
	if diff := cmp.Diff(string(b.Result), string(a.Result)); diff != "" {
		t.Errorf("replay baseline differs from the solver's (-solver +replay):\n%s", diff)
	}

	// selection applies
	if cases, err := traceCases(project, envs, Selection{Agents: []string{"solver"}}); err != nil || len(cases) != 0 {
		t.Errorf("cases for --agent solver = %v, %v", cases, err)
	}
}

func TestImportTraceErrors(t *testing.T) {
	project := t.TempDir()
	e := newLedger(t, ledgerOpts{})
	envs := []env.Environment{e}
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bare := write("bare.jsonl", `{"type":"tool_call","tool":"charge","input":{"id":"A-1","amount":100}}`)
	started := write("x.jsonl", `{"type":"run_start","environment":"ledger","task":{"id":"TASK-001"}}`)
	tests := []struct {
		name, path, env, task, want string
	}{
		{"missing", filepath.Join(dir, "none.jsonl"), "", "", "none.jsonl: no such file or directory"},
		{"no run_start", bare, "", "", "the trace names no environment (it has no run_start event)"},
		{"no task", bare, "ledger", "", "names no task (it has no run_start event)"},
		{"unknown env", bare, "nope", "TASK-001", "no environment nope"},
		{"unknown task", bare, "ledger", "TASK-009", "no task TASK-009 in ledger; tasks: TASK-001, TASK-002, TASK-003"},
		{"disagrees", started, "ledger", "TASK-002", "the trace is of task TASK-001, not TASK-002"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := ImportTrace(project, envs, tt.path, tt.env, tt.task)
			if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "--") {
				t.Errorf("error = %v, want %q and no flag", err, tt.want)
			}
		})
	}
	// a trace without run_start is fine with --env and --task
	k, _, err := ImportTrace(project, envs, bare, "ledger", "TASK-001")
	if err != nil || k.Agent != "replay-bare" {
		t.Fatalf("import: %v, %v", k, err)
	}
	// a different trace under the same name is refused
	write("bare.jsonl", `{"type":"tool_call","tool":"charge","input":{"id":"A-1","amount":1}}`)
	if _, _, err := ImportTrace(project, envs, bare, "ledger", "TASK-001"); err == nil || !strings.Contains(err.Error(), "a different trace is already the case ledger/replay-bare/TASK-001") {
		t.Errorf("error = %v", err)
	}
	// a trace of a task that no longer exists is an error of check
	os.MkdirAll(filepath.Join(project, TracesDir, "ledger", "replay-old"), 0o755)
	os.WriteFile(filepath.Join(project, TracesDir, "ledger", "replay-old", "TASK-404.trace.jsonl"), []byte("{}"), 0o644)
	if _, err := traceCases(project, envs, Selection{}); err == nil || !strings.Contains(err.Error(), "TASK-404.trace.jsonl: task_not_found: no task TASK-404 in ledger") {
		t.Errorf("error = %v", err)
	}
}

func TestReplayName(t *testing.T) {
	for path, want := range map[string]string{
		".silo/runs/run_20260915020238_9s01/trace.jsonl":            "replay-run_20260915020238_9s01",
		"traces/claude-opus.jsonl":                                  "replay-claude-opus",
		"tests/baselines/erp-tool-path/TASK-013.tool-events.json":   "replay-TASK-013",
		"captured/TASK-002.trace.jsonl":                             "replay-TASK-002",
		"gpt 5 (retry)!.jsonl":                                      "replay-gpt-5--retry--",
		"trace.jsonl":                                               "replay-trace",
		filepath.Join(string(filepath.Separator), "x", "a:b.jsonl"): "replay-a-b",
	} {
		if got := replayName(path); got != want {
			t.Errorf("replayName(%q) = %q, want %q", path, got, want)
		}
	}
}
