package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/agent-oracle/oracle/env"
)

// counted is a distribution of n graded runs of which pass passed: a
// required check that held in the passing runs.
func counted(pass, n int) *Distribution {
	d := &Distribution{Runs: n, Verdicts: Verdicts{Pass: pass, Fail: n - pass},
		Terminations: map[string]int{Completed: n}, Violations: map[string]int{}, Rewards: map[string]int{}}
	if pass > 0 {
		d.Rewards["1.00"] = pass
	}
	if n-pass > 0 {
		d.Rewards["0.00"] = n - pass
	}
	d.Checks = []CheckCount{{Label: "done", Kind: env.Required, Runs: n, Passed: pass}}
	return d
}

// simulation runs checks of tasks × runs on each side. Each check draws
// every task's true baseline pass rate uniformly from [lo, 1]; the
// candidate's true rate is lower by drop; each run passes with its side's
// rate. It counts the gate's verdicts.
type simulation struct {
	tasks, runs, checks int
	lo, drop            float64
	seed                uint64
	// rates, when set, are the baseline's true rates of every check
	// instead of new draws
	rates []float64
	// cand, when set, are the candidate's true rates instead of the
	// baseline's less drop
	cand []float64
}

func (s simulation) run(t testing.TB) map[Conclusion]int {
	t.Helper()
	rng := rand.New(rand.NewPCG(s.seed, 0x5eed))
	// Decide only reads distributions: one for each pass count will do
	dists := make([]*Distribution, s.runs+1)
	for pass := range dists {
		dists[pass] = counted(pass, s.runs)
	}
	draw := func(p float64) *Distribution {
		pass := 0
		for range s.runs {
			if rng.Float64() < p {
				pass++
			}
		}
		return dists[pass]
	}
	got := map[Conclusion]int{}
	pairs := make([]Pair, s.tasks)
	for i := range pairs {
		pairs[i].Task = fmt.Sprintf("T%03d", i)
	}
	for range s.checks {
		for i := range pairs {
			p := s.lo + (1-s.lo)*rng.Float64()
			if s.rates != nil {
				p = s.rates[i]
			}
			q := p - s.drop
			if s.cand != nil {
				q = s.cand[i]
			}
			pairs[i].Baseline, pairs[i].Candidate = draw(p), draw(q)
		}
		d, err := Decide(pairs, Options{K: []int{1}})
		if err != nil {
			t.Fatal(err)
		}
		got[d.Verdict]++
		if len(d.Dropped) > 0 {
			got[droppedTask]++
		}
	}
	return got
}

// droppedTask counts, in a simulation's tally, the checks in which a
// task's own test said it dropped.
const droppedTask Conclusion = "dropped task"

// shape is a check's number of tasks and runs.
type shape struct{ tasks, runs int }

// falseAlarmShapes are the shapes whose false alarm rate the quick test
// measures, the baseline's true rates unchanged and drawn across [0, 1];
// the long measurement adds the rest.
var (
	falseAlarmShapes     = []shape{{1, 10}, {3, 10}, {8, 10}, {24, 10}, {24, 3}, {50, 5}}
	falseAlarmShapesLong = []shape{{2, 20}, {8, 2}, {100, 2}, {200, 10}}
)

// detectionTasks are the numbers of tasks for which the detection of a
// 20-point drop is measured, with the runs RunsFor says are enough.
var (
	detectionTasks     = []int{8, 24}
	detectionTasksLong = []int{1, 3, 50}
)

// simulate measures, over checks simulated checks of each shape, the false
// alarm rate (regressions and improvements when nothing changed) and the
// detection rate of a 20-point drop with the runs RunsFor asks for. It
// fails when the false alarm rate over all shapes is above 5%, or one
// shape's is more than three of the simulation's standard errors above 5%
// (a shape at exactly 5% measures above it half the time), or a detection
// rate is under 80%.
func simulate(t testing.TB, checks int, shapes []shape, tasks []int) {
	alarms := 0
	for i, c := range shapes {
		got := simulation{tasks: c.tasks, runs: c.runs, checks: checks, seed: uint64(100 + i)}.run(t)
		n := got[Regression] + got[Improvement]
		alarms += n
		rate := float64(n) / float64(checks)
		t.Logf("false alarms, %d tasks × %d runs, true rates unchanged: %d regressions + %d improvements in %d checks = %.1f%%",
			c.tasks, c.runs, got[Regression], got[Improvement], checks, 100*rate)
		if limit := 0.05 + 3*math.Sqrt(0.05*0.95/float64(checks)); rate > limit {
			t.Errorf("%d tasks × %d runs: false alarm rate %.1f%% is over 5%% by more than the simulation's noise (%.1f%%)", c.tasks, c.runs, 100*rate, 100*limit)
		}
	}
	pooled := float64(alarms) / float64(checks*len(shapes))
	t.Logf("false alarms over all %d checks: %.1f%%", checks*len(shapes), 100*pooled)
	if pooled > 0.05 {
		t.Errorf("false alarm rate %.1f%% over all shapes is over 5%%", 100*pooled)
	}
	for i, tasks := range tasks {
		runs, err := RunsFor(Design{Tasks: tasks}, 0.2)
		if err != nil {
			t.Fatal(err)
		}
		got := simulation{tasks: tasks, runs: runs, checks: checks, lo: 0.2, drop: 0.2, seed: uint64(200 + i)}.run(t)
		rate := float64(got[Regression]) / float64(checks)
		t.Logf("detection, %d tasks × %d runs (RunsFor 0.2), true rates in [0.2, 1] dropped by 0.2: %d regressions in %d checks = %.1f%%",
			tasks, runs, got[Regression], checks, 100*rate)
		if rate < Power {
			t.Errorf("%d tasks × %d runs: detection rate %.1f%% is under 80%%", tasks, runs, 100*rate)
		}
	}
}

// detectKnown measures the detection of a 20-point drop when the power
// arithmetic is given the baseline's true rates (drawn once from [0.2, 1]):
// RunsFor then asks for fewer runs than the worst case, and the gate must
// still detect the drop in 80% of checks, within three of the
// simulation's standard errors.
func detectKnown(t testing.TB, checks int, tasks []int) {
	for i, n := range tasks {
		rng := rand.New(rand.NewPCG(uint64(300+i), 1))
		rates := make([]float64, n)
		for j := range rates {
			rates[j] = 0.2 + 0.8*rng.Float64()
		}
		runs, err := RunsFor(Design{Tasks: n, Rates: rates}, 0.2)
		if err != nil {
			t.Fatal(err)
		}
		got := simulation{tasks: n, runs: runs, checks: checks, drop: 0.2, seed: uint64(400 + i), rates: rates}.run(t)
		rate := float64(got[Regression]) / float64(checks)
		t.Logf("detection, %d tasks × %d runs (RunsFor 0.2 given the true rates), dropped by 0.2: %d regressions in %d checks = %.1f%%",
			n, runs, got[Regression], checks, 100*rate)
		if limit := Power - 3*math.Sqrt(Power*(1-Power)/float64(checks)); rate < limit {
			t.Errorf("%d tasks × %d runs: detection rate %.1f%% is under 80%% by more than the simulation's noise", n, runs, 100*rate)
		}
	}
}

// TestSimulation is the quick measurement, with fixed seeds: 300 checks
// of each shape.
func TestSimulation(t *testing.T) { simulate(t, 300, falseAlarmShapes, detectionTasks) }

// BenchmarkSimulation is the long measurement, 5,000 checks of every
// shape, a minute or so (go test -run '^$' -bench Simulation -benchtime 1x
// -v ./oracle/stats); docs/statistics.md quotes its figures.
func BenchmarkSimulation(b *testing.B) {
	for b.Loop() {
		simulate(b, 5000, append(append([]shape(nil), falseAlarmShapes...), falseAlarmShapesLong...),
			append(append([]int(nil), detectionTasks...), detectionTasksLong...))
		detectKnown(b, 5000, []int{8, 24, 50})
		oneTaskCollapse(b, 5000, []float64{0.5, 0.7, 0.8, 0.9, 1})
	}
}

// oneTaskCollapse measures the case the mean cannot see: one task of 8 ×
// 10 runs falls from 1.0 to 0.2 while the others stay at other, and the
// false alarms of the same shape unchanged. The task's own exact test must
// name it in 90% of checks, within three of the simulation's standard
// errors.
func oneTaskCollapse(t testing.TB, checks int, others []float64) {
	for i, other := range others {
		rates := []float64{1, other, other, other, other, other, other, other}
		cand := append([]float64{0.2}, rates[1:]...)
		got := simulation{tasks: 8, runs: 10, checks: checks, rates: rates, cand: cand, seed: uint64(500 + i)}.run(t)
		same := simulation{tasks: 8, runs: 10, checks: checks, rates: rates, seed: uint64(600 + i)}.run(t)
		rate := float64(got[Regression]) / float64(checks)
		fa := float64(same[Regression]+same[Improvement]) / float64(checks)
		t.Logf("one task 1.0 → 0.2 among 8 × 10 runs, the others at %.1f: %d regressions in %d checks = %.1f%% (its own test %d); unchanged: %d false alarms = %.1f%%",
			other, got[Regression], checks, 100*rate, got[droppedTask], same[Regression]+same[Improvement], 100*fa)
		if limit := 0.9 - 3*math.Sqrt(0.9*0.1/float64(checks)); rate < limit {
			t.Errorf("others at %.1f: one task's collapse named in %.1f%% of checks, under 90%%", other, 100*rate)
		}
		if limit := Alpha + 3*math.Sqrt(Alpha*(1-Alpha)/float64(checks)); fa > limit {
			t.Errorf("others at %.1f: false alarm rate %.1f%% over 5%%", other, 100*fa)
		}
	}
}

// TestSimulationOneTask is the quick measurement of oneTaskCollapse.
func TestSimulationOneTask(t *testing.T) { oneTaskCollapse(t, 200, []float64{0.8}) }
