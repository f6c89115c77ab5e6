package bench

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/fixtures/crm"
	"github.com/agent-oracle/oracle/internal/gctune"
	"github.com/agent-oracle/oracle/oracle"
	"github.com/agent-oracle/oracle/render"
	"github.com/agent-oracle/oracle/runner"
)

var large = flag.Bool("large", false, "also run the 100,000-case check and record benchmarks (minutes)")

// measureCPU reports the CPU time (all goroutines, GC included) per op
// of what runs until the returned function is called.
func measureCPU(b *testing.B) (stop func()) {
	start := cpuTime()
	return func() { b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op") }
}

func synth(b *testing.B, tasks, entities int) env.Environment {
	b.Helper()
	e, err := Environment(tasks, entities)
	if err != nil {
		b.Fatal(err)
	}
	return e
}

func firstTask(b *testing.B, e env.Environment, id string) env.Task {
	b.Helper()
	t, err := env.FindTask(e, id)
	if err != nil {
		b.Fatal(err)
	}
	return t
}

// BenchmarkRolloutCRM is one whole in-process rollout of crm TASK-002 (the
// departed rep's deals) by its solver: world, validated calls, state diff,
// verifier and the four artifacts in memory, as oracle run makes them.
func BenchmarkRolloutCRM(b *testing.B) { benchCRM(b, runner.Config{}) }

// BenchmarkRolloutCRMResultOnly is the same rollout as check and record
// make it: result.json and state-diff.json only.
func BenchmarkRolloutCRMResultOnly(b *testing.B) { benchCRM(b, runner.Config{ResultOnly: true}) }

func benchCRM(b *testing.B, cfg runner.Config) {
	e, err := crm.New()
	if err != nil {
		b.Fatal(err)
	}
	task := firstTask(b, e, "TASK-002")
	agent, _ := e.Agent("solver")
	benchRollouts(b, e, task, agent, cfg)
}

// BenchmarkRolloutFixedCost is the runner's fixed cost: a rollout of a
// one-entity world with two tool calls.
func BenchmarkRolloutFixedCost(b *testing.B) {
	e := synth(b, 1, 1)
	benchRollouts(b, e, firstTask(b, e, "TASK-000001"), Solver, runner.Config{})
}

// benchRollouts runs rollouts that pass one after another, with the
// garbage collector at two paces: gc=default is Go's (a test binary's, a
// program that imports the runner and sets nothing), gc=command the one
// the oracle command sets (see gctune), which collects the garbage of many
// small rollouts far less often.
func benchRollouts(b *testing.B, e env.Environment, task env.Task, agent env.Agent, cfg runner.Config) {
	for _, pace := range []string{"default", "command"} {
		b.Run("gc="+pace, func(b *testing.B) {
			if pace == "command" {
				defer gctune.Start()()
			}
			runtime.GC()
			b.ReportAllocs()
			defer measureCPU(b)()
			for b.Loop() {
				o, err := runner.Run(context.Background(), e, task, agent, cfg)
				if err != nil {
					b.Fatal(err)
				}
				if !o.Result.Passed {
					b.Fatalf("the agent did not pass: %s", o.Artifacts.Result)
				}
			}
		})
	}
}

// BenchmarkToolCall is one tool call through the runner (input validation,
// trace, the world's call) in a world of 1 or 1,000 entities, for a read
// tool and a write tool. Each op is one call of a long rollout.
func BenchmarkToolCall(b *testing.B) {
	for _, entities := range []int{1, 1000} {
		for _, tool := range []string{"get_entity", "set_status"} {
			b.Run(fmt.Sprintf("%s/entities=%d", tool, entities), func(b *testing.B) {
				e := synth(b, 1, entities)
				task := firstTask(b, e, "TASK-000001")
				input := map[string]string{"id": EntityID(entities / 2), "status": "won"}
				if tool == "get_entity" {
					input = map[string]string{"id": EntityID(entities / 2)}
				}
				// inline, as the reference solvers are (env.Inline)
				agent := env.Inline(env.AgentFunc(func(ctx context.Context, in env.AgentInput) (any, error) {
					b.ResetTimer()
					stop := measureCPU(b)
					defer stop()
					for range b.N {
						if r := in.Call(ctx, tool, input); r.IsError {
							return nil, fmt.Errorf("%s: %s", tool, r.Output)
						}
					}
					b.StopTimer()
					return "done", nil
				}))
				b.ReportAllocs()
				o, err := runner.Run(context.Background(), e, task, agent, runner.Config{MaxToolCalls: b.N + 1, Timeout: time.Hour})
				if err != nil {
					b.Fatal(err)
				}
				if o.Result.TerminationReason != runner.Completed {
					b.Fatalf("rollout ended %s: %s", o.Result.TerminationReason, o.Artifacts.Result)
				}
			})
		}
	}
}

func caseCounts(small ...int) []int {
	if *large {
		return append(small, 100_000)
	}
	return small
}

func synthCases(b *testing.B, e env.Environment, n int) []oracle.Case {
	b.Helper()
	cases, err := oracle.Cases([]env.Environment{e}, oracle.Selection{})
	if err != nil {
		b.Fatal(err)
	}
	if len(cases) != n {
		b.Fatalf("%d cases, want %d", len(cases), n)
	}
	return cases
}

func options() oracle.Options { return oracle.Options{Jobs: runtime.NumCPU()} }

func record(b *testing.B, store *baseline.Store, cases []oracle.Case) {
	b.Helper()
	rep, err := oracle.Record(context.Background(), store, oracle.StreamOf(cases), oracle.Selection{}, oracle.RecordOptions{Options: options()})
	if err != nil {
		b.Fatal(err)
	}
	if n := rep.Count(oracle.RecordError) + rep.Count(oracle.RecordRefused); n != 0 {
		b.Fatalf("record: %d cases failed or were refused", n)
	}
}

// peakHeap samples the live heap every few milliseconds until stop is
// called, which returns the largest sample in MiB.
func peakHeap() (stop func() float64) {
	var peak atomic.Uint64
	done := make(chan struct{})
	finished := make(chan struct{})
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	go func() {
		defer close(finished)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() float64 {
		close(done)
		<-finished
		return float64(peak.Load()) / (1 << 20)
	}
}

// BenchmarkCheck is `oracle check` of unchanged synthetic cases (two runs
// each, one job per CPU), as the command runs it with its text report:
// cases made as they are needed, each compared as its runs end and kept
// only when the report lists it. peak-heap-MiB is the peak live heap
// during the check, env-heap-MiB the live heap before it: the environment
// (its parsed tasks and its task files) and the benchmark's own.
func BenchmarkCheck(b *testing.B) {
	for _, n := range caseCounts(1000, 10_000) {
		b.Run(fmt.Sprintf("cases=%d", n), func(b *testing.B) {
			store := &baseline.Store{Root: b.TempDir()}
			e := synth(b, n, 100)
			record(b, store, synthCases(b, e, n))
			envHeap := liveHeap()
			defer gctune.Start()() // as command.Main paces the collector
			b.ReportAllocs()
			b.ResetTimer()
			defer measureCPU(b)()
			peak := 0.0
			for b.Loop() {
				stop := peakHeap()
				cases, err := oracle.StreamCases([]env.Environment{e}, oracle.Selection{})
				if err != nil {
					b.Fatal(err)
				}
				var text bytes.Buffer
				rep, err := oracle.CheckEach(context.Background(), store, cases, oracle.Selection{}, options(), func(cr *oracle.CaseReport, _ *oracle.Kept) error {
					render.TextCase(&text, cr, render.TextOptions{})
					return nil
				})
				peak = max(peak, stop())
				if err != nil {
					b.Fatal(err)
				}
				if s := rep.Summary; s.Unchanged != s.Total || s.Total != n || text.Len() != 0 {
					b.Fatalf("check: %+v\n%s", rep.Summary, text.String())
				}
			}
			b.ReportMetric(peak, "peak-heap-MiB")
			b.ReportMetric(envHeap, "env-heap-MiB")
		})
	}
}

// liveHeap returns the live heap in MiB after a garbage collection.
func liveHeap() float64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	return float64(sample[0].Value.Uint64()) / (1 << 20)
}

// BenchmarkRecord is `oracle record` of fresh synthetic cases into an empty
// store.
func BenchmarkRecord(b *testing.B) {
	for _, n := range caseCounts(1000, 10_000) {
		b.Run(fmt.Sprintf("cases=%d", n), func(b *testing.B) {
			cases := synthCases(b, synth(b, n, 100), n)
			defer gctune.Start()() // as command.Main paces the collector
			b.ReportAllocs()
			defer measureCPU(b)()
			for b.Loop() {
				b.StopTimer()
				dir, err := os.MkdirTemp(b.TempDir(), "store")
				if err != nil {
					b.Fatal(err)
				}
				store := &baseline.Store{Root: dir}
				b.StartTimer()
				record(b, store, cases)
			}
		})
	}
}

// BenchmarkCompare is check's compare step on unchanged cases (read the
// baseline, diff each file with the fresh bytes) next to the floor it is
// measured against: reading the same files and bytes.Equal.
func BenchmarkCompare(b *testing.B) {
	const n = 1000
	store := &baseline.Store{Root: b.TempDir()}
	cases := synthCases(b, synth(b, n, 100), n)
	record(b, store, cases)
	fresh := make([]baseline.Entry, n)
	for i, c := range cases {
		o, err := runner.Run(context.Background(), c.Env, c.Task, Solver, runner.Config{Agent: c.AgentRef})
		if err != nil {
			b.Fatal(err)
		}
		files := c.Files
		if files == nil {
			files = baseline.Files
		}
		fresh[i] = baseline.Pick(o.Artifacts.Files(), files)
	}
	b.Run("diff", func(b *testing.B) {
		b.ReportAllocs()
		defer measureCPU(b)()
		for b.Loop() {
			r := store.Reader() // one a check, as oracle.CheckEach reads
			for i, c := range cases {
				frozen, err := r.ReadLike(c.Key, fresh[i])
				if err != nil {
					b.Fatal(err)
				}
				for _, name := range baseline.Files {
					if d := oracle.DiffFile(name, frozen.File(name), fresh[i].File(name)); d != nil {
						b.Fatalf("%s %s changed", c.Key, name)
					}
				}
			}
		}
	})
	b.Run("bytes.Equal", func(b *testing.B) {
		b.ReportAllocs()
		defer measureCPU(b)()
		for b.Loop() {
			for i, c := range cases {
				for _, name := range baseline.Files {
					data, err := os.ReadFile(store.Path(c.Key, name))
					if err != nil {
						b.Fatal(err)
					}
					if !bytes.Equal(data, fresh[i].File(name)) {
						b.Fatalf("%s %s changed", c.Key, name)
					}
				}
			}
		}
	})
}
