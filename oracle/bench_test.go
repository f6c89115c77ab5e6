package oracle_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/fixtures"
	"github.com/agent-oracle/oracle/oracle"
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
		rep, err := oracle.CheckEach(context.Background(), store, sel.Cases, oracle.Selection{}, opts, func(*oracle.CaseReport, *oracle.Kept) error { return nil })
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
