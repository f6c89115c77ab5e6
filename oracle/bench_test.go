package oracle_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/fixtures"
	"github.com/agent-oracle/oracle/oracle"
	"github.com/agent-oracle/oracle/oracle/report"
)

// benchCheck records envs once, then measures oracle.CheckEach over every
// case with the default two runs per case and one job per CPU.
func benchCheck(b *testing.B, envs []env.Environment) {
	store := &baseline.Store{Root: b.TempDir()}
	sel, err := oracle.Select(b.TempDir(), envs, oracle.Selection{}, store.List)
	if err != nil {
		b.Fatal(err)
	}
	opts := oracle.Options{Jobs: runtime.NumCPU()}
	if _, err := oracle.Record(context.Background(), store, sel.Cases, oracle.Selection{}, oracle.RecordOptions{Options: opts}); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(sel.Cases.Len), "cases")
	b.ResetTimer()
	for b.Loop() {
		rep, err := oracle.CheckEach(context.Background(), store, sel.Cases, oracle.Selection{}, opts, func(*report.Case, *oracle.Kept) error { return nil })
		if err != nil {
			b.Fatal(err)
		}
		if s := rep.Summary; s.Unchanged != s.Total {
			b.Fatalf("check: %+v", rep.Summary)
		}
	}
}

// BenchmarkCheckBuiltin is `oracle check` over the built-in suite.
func BenchmarkCheckBuiltin(b *testing.B) {
	envs, err := fixtures.All()
	if err != nil {
		b.Fatal(err)
	}
	benchCheck(b, envs)
}

// BenchmarkCheck1000 is `oracle check` over 1,000 generated cases.
func BenchmarkCheck1000(b *testing.B) {
	benchCheck(b, []env.Environment{oracle.GeneratedEnvironment(b, 1000)})
}

// BenchmarkCheckModelRuns is a check of one task × 10 runs of a model
// agent (a rollout that waits 20ms for its model, then solves the task)
// with 4 jobs: the runs of the one case share the jobs.
func BenchmarkCheckModelRuns(b *testing.B) {
	envs, err := fixtures.All()
	if err != nil {
		b.Fatal(err)
	}
	store := &baseline.Store{Root: b.TempDir()}
	sel := oracle.Selection{Envs: []string{"crm"}, Tasks: []string{"TASK-004"}}
	selected, err := oracle.Select(b.TempDir(), envs, sel, store.List)
	if err != nil {
		b.Fatal(err)
	}
	opts := oracle.Options{Jobs: 4, Distribution: oracle.DistributionOptions{Runs: 10},
		Resolve: func(e env.Environment, ref string) (env.Agent, error) {
			solver, _ := e.Agent(ref)
			return env.AgentFunc(func(ctx context.Context, in env.AgentInput) (any, error) {
				time.Sleep(20 * time.Millisecond)
				return solver.Run(ctx, in)
			}), nil
		}}
	if _, err := oracle.Record(context.Background(), store, selected.Cases, sel, oracle.RecordOptions{Options: opts}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		rep, err := oracle.CheckEach(context.Background(), store, selected.Cases, sel, opts, func(*report.Case, *oracle.Kept) error { return nil })
		if err != nil {
			b.Fatal(err)
		}
		if s := rep.Summary; s.Unchanged != s.Total {
			b.Fatalf("check: %+v", rep.Summary)
		}
	}
}
