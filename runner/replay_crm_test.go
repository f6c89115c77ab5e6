package runner_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/agent-oracle/oracle/fixtures/crm"
	"github.com/agent-oracle/oracle/runner"
	"github.com/google/go-cmp/cmp"
)

// TestReplayCRMSolver: for every crm task, replaying the trace.jsonl of the
// solver's run gives the run's result.json and state-diff.json byte for byte.
func TestReplayCRMSolver(t *testing.T) {
	t.Parallel()
	e, err := crm.New()
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := e.Tasks()
	if err != nil {
		t.Fatal(err)
	}
	solver, _ := e.Agent("solver")
	for _, task := range tasks {
		t.Run(task.ID, func(t *testing.T) {
			t.Parallel()
			orig, err := runner.Run(context.Background(), e, task, solver, runner.Config{Agent: "solver"})
			if err != nil {
				t.Fatal(err)
			}
			trace := filepath.Join(t.TempDir(), "trace.jsonl")
			if err := os.WriteFile(trace, orig.Artifacts.Trace, 0o644); err != nil {
				t.Fatal(err)
			}
			replay, err := runner.Resolve(e, "replay:"+trace)
			if err != nil {
				t.Fatal(err)
			}
			again, err := runner.Run(context.Background(), e, task, replay, runner.Config{Agent: "replay"})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(orig.Artifacts.Result), string(again.Artifacts.Result)); diff != "" {
				t.Errorf("result.json (-solver +replay):\n%s", diff)
			}
			if diff := cmp.Diff(string(orig.Artifacts.StateDiff), string(again.Artifacts.StateDiff)); diff != "" {
				t.Errorf("state-diff.json (-solver +replay):\n%s", diff)
			}
		})
	}
}
