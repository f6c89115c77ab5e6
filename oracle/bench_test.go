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

// benchCheck records envs once, then measures oracle.Check over every case
// with the default two runs per case and one job per CPU.
func benchCheck(b *testing.B, envs []env.Environment) {
	store := &baseline.Store{Root: b.TempDir()}
	cases, err := oracle.Cases(envs, oracle.Selection{})
	if err != nil {
		b.Fatal(err)
	}
	opts := oracle.Options{Jobs: runtime.NumCPU()}
	if _, err := oracle.Record(context.Background(), store, oracle.StreamOf(cases), oracle.Selection{}, oracle.RecordOptions{Options: opts}); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(len(cases)), "cases")
	b.ResetTimer()
	for b.Loop() {
		res, err := oracle.Check(context.Background(), store, oracle.StreamOf(cases), oracle.Selection{}, opts)
		if err != nil {
			b.Fatal(err)
		}
		if s := res.Report.Summary; s.Unchanged != s.Total {
			b.Fatalf("check: %+v", res.Report.Summary)
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
