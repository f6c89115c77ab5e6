package runner_test

import (
	"context"
	"testing"

	"github.com/agent-oracle/oracle/fixtures/crm"
	"github.com/agent-oracle/oracle/runner"
)

// BenchmarkRolloutDepartedRep is one whole in-process rollout of the crm
// task that moves a departed rep's open deals: world, solver, validated
// calls, state diff, verifier and the four artifacts in memory.
func BenchmarkRolloutDepartedRep(b *testing.B) {
	e, err := crm.New()
	if err != nil {
		b.Fatal(err)
	}
	tasks, err := e.Tasks()
	if err != nil {
		b.Fatal(err)
	}
	task := tasks[1]
	if task.ID != "TASK-002" {
		b.Fatalf("task %s, want TASK-002", task.ID)
	}
	agent, _ := e.Agent("solver")
	b.ReportAllocs()
	for b.Loop() {
		o, err := runner.Run(context.Background(), e, task, agent, runner.Config{})
		if err != nil {
			b.Fatal(err)
		}
		if !o.Result.Passed {
			b.Fatal("the solver did not pass")
		}
	}
}
