package stats

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agent-oracle/oracle/env"
	"github.com/google/go-cmp/cmp"
)

// pairs makes tasks T001… from baseline and candidate pass counts, n runs
// each.
func pairsOf(n int, counts ...[2]int) []Pair {
	out := make([]Pair, len(counts))
	for i, c := range counts {
		out[i] = Pair{Task: fmt.Sprintf("T%03d", i+1), Baseline: counted(c[0], n), Candidate: counted(c[1], n)}
	}
	return out
}

func repeat(n int, c [2]int) [][2]int {
	out := make([][2]int, n)
	for i := range out {
		out[i] = c
	}
	return out
}

func decide(t *testing.T, pairs []Pair, opts Options) *Decision {
	t.Helper()
	d, err := Decide(pairs, opts)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// The intervals and the per-task tests against testdata/reference.py's
// decision, computed there with mpmath's t quantile, NormalDist's Wilson
// intervals and exact Fisher tests.
func TestDecideKnown(t *testing.T) {
	pairs := []Pair{
		{"A", counted(9, 10), counted(5, 10)},
		{"B", counted(7, 10), counted(6, 10)},
		{"C", counted(10, 10), counted(8, 10)},
		{"D", counted(4, 10), counted(4, 10)},
		{"E", counted(6, 8), counted(2, 9)},
	}
	d := decide(t, pairs, Options{})
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"difference", d.Difference, -0.24555555555555558},
		{"tasks low", d.TasksInterval.Low, -0.5644737988144528},
		{"tasks high", d.TasksInterval.High, 0.07336268770334164},
		{"runs low", d.RunsInterval.Low, -0.395539182276033},
		{"runs high", d.RunsInterval.High, -0.05420070045372713},
		{"gate low", d.Interval.Low, -0.5644737988144528},
		{"gate high", d.Interval.High, 0.07336268770334164},
	} {
		if !near(c.got, c.want, 1e-10) {
			t.Errorf("%s = %.17g, want %.17g", c.name, c.got, c.want)
		}
	}
	fisher := []float64{0.14086687306501547, 1.0, 0.47368421052631576, 1.0, 0.05668449197860963}
	holm := []float64{0.5634674922600619, 1.0, 1.0, 1.0, 0.28342245989304815}
	for i, tr := range d.PerTask {
		if !near(tr.FisherP, fisher[i], 1e-10) || !near(tr.HolmP, holm[i], 1e-10) {
			t.Errorf("%s: Fisher %v Holm %v, want %v %v", tr.Task, tr.FisherP, tr.HolmP, fisher[i], holm[i])
		}
	}
	drop := []float64{0.07043343653250773, 0.5, 0.23684210526315788, 0.6750416765896642, 0.044467297408473876}
	dropAdj := []float64{1, 1, 1, 1, 0.13340189222542162}
	for i, tr := range d.PerTask {
		if !near(tr.DropP, drop[i], 1e-10) || !near(tr.DropAdjusted, dropAdj[i], 1e-10) {
			t.Errorf("%s: drop p %v adjusted %v, want %v %v", tr.Task, tr.DropP, tr.DropAdjusted, drop[i], dropAdj[i])
		}
	}
	// the runs alone say regression, the tasks' spread does not: no change
	if d.Verdict != NoChange || d.RatesVerdict != NoChange {
		t.Errorf("verdict %s (rates %s), want no change", d.Verdict, d.RatesVerdict)
	}
	if d.Tasks != 5 || d.BaselineRuns != 48 || d.CandidateRuns != 49 || !near(d.BaselineRate, (0.9+0.7+1+0.4+0.75)/5, 1e-15) {
		t.Errorf("tasks %d, runs %d/%d, baseline rate %v", d.Tasks, d.BaselineRuns, d.CandidateRuns, d.BaselineRate)
	}
}

func TestDecideVerdicts(t *testing.T) {
	for _, c := range []struct {
		name   string
		pairs  []Pair
		opts   Options
		want   Conclusion
		detail func(*testing.T, *Decision)
	}{
		{
			name: "identical deterministic tasks", pairs: pairsOf(10, repeat(8, [2]int{10, 10})...), want: NoChange,
			detail: func(t *testing.T, d *Decision) {
				// no spread and no difference; the runs still bound the change
				if d.TasksInterval.Low != 0 || d.TasksInterval.High != 0 || d.RunsInterval.Low >= -0.05 {
					t.Errorf("intervals %v %v", *d.TasksInterval, d.RunsInterval)
				}
			},
		},
		{
			// every task loses one run in ten: no spread at all, so the t
			// interval is a point; the runs interval decides, and with 24
			// tasks it is narrow enough
			name: "a uniform drop over many tasks", pairs: pairsOf(10, repeat(24, [2]int{10, 9})...), want: Regression,
			detail: func(t *testing.T, d *Decision) {
				if d.TasksInterval.High-d.TasksInterval.Low > 1e-12 || d.Interval != d.RunsInterval || d.Interval.High >= 0 {
					t.Errorf("intervals %v %v %v", *d.TasksInterval, d.RunsInterval, d.Interval)
				}
			},
		},
		{
			// the same drop over three tasks could be noise: zero spread
			// does not make it certain
			name: "a uniform drop over few tasks", pairs: pairsOf(10, repeat(3, [2]int{10, 9})...), want: NoChange,
		},
		{
			name: "a large drop", pairs: pairsOf(10, [2]int{9, 3}, [2]int{8, 2}, [2]int{10, 5}, [2]int{7, 2}, [2]int{9, 4}, [2]int{6, 1}), want: Regression,
		},
		{
			name: "a large gain", pairs: pairsOf(10, [2]int{3, 9}, [2]int{2, 8}, [2]int{5, 10}, [2]int{2, 7}, [2]int{4, 9}, [2]int{1, 6}), want: Improvement,
		},
		{
			name: "a drop within the margin", opts: Options{Margin: 0.6},
			pairs: pairsOf(10, [2]int{9, 3}, [2]int{8, 2}, [2]int{10, 5}, [2]int{7, 2}, [2]int{9, 4}, [2]int{6, 1}), want: NoChange,
		},
		{
			name: "one task, a clear drop", pairs: pairsOf(20, [2]int{19, 5}), want: Regression,
			detail: func(t *testing.T, d *Decision) {
				if d.TasksInterval != nil || d.Interval != d.RunsInterval {
					t.Errorf("one task: intervals %v %v", d.TasksInterval, d.Interval)
				}
			},
		},
		{
			name: "one task, noise", pairs: pairsOf(10, [2]int{10, 7}), want: NoChange,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := decide(t, c.pairs, c.opts)
			if d.Verdict != c.want || d.RatesVerdict != c.want {
				t.Fatalf("verdict %s (rates %s), want %s; interval %v", d.Verdict, d.RatesVerdict, c.want, d.Interval)
			}
			if c.detail != nil {
				c.detail(t, d)
			}
		})
	}
}

// withViolation gives a task's distribution v confirmed forbidden effects
// (failed runs).
func withViolation(pass, n, v int, label string) *Distribution {
	d := counted(pass, n)
	d.Checks = append(d.Checks, CheckCount{Label: label, Kind: env.Forbidden, Runs: n, Passed: n - v})
	d.Violations[label] = v
	return d
}

func TestDecideForbiddenEffects(t *testing.T) {
	pairs := pairsOf(10, repeat(8, [2]int{8, 8})...)
	// same pass rate, but one task gained a forbidden effect in 1 of 10 runs
	pairs[3].Candidate = withViolation(8, 10, 1, "another deal changed")
	// a task whose baseline had the effect already: zero tolerance all the same
	pairs[5].Baseline = withViolation(8, 10, 1, "email sent")
	pairs[5].Candidate = withViolation(4, 10, 6, "email sent")
	d := decide(t, pairs, Options{})
	if d.RatesVerdict != NoChange || d.Verdict != Regression {
		t.Fatalf("verdict %s (rates %s), want a regression from the effect alone", d.Verdict, d.RatesVerdict)
	}
	want := []Alarm{
		{Task: "T004", Kind: ForbiddenEffect, Label: "another deal changed", Candidate: 1, CandidateRuns: 10, BaselineRuns: 10, Regression: true},
		{Task: "T006", Kind: ForbiddenEffect, Label: "email sent", Candidate: 6, CandidateRuns: 10, Baseline: 1, BaselineRuns: 10, Regression: true},
	}
	if diff := cmp.Diff(want, d.Findings); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
	if line := d.Summary().Line; !strings.Contains(line, `T006 had the forbidden effect "email sent" in 1 of 10 → 6 of 10 runs`) {
		t.Errorf("summary %q does not name T006's counts", line)
	}
	// a declared budget: 1 of 10 is within 10% (P(X ≥ 1) = 0.65), 6 of 10 is not
	d = decide(t, pairs, Options{ForbiddenBudget: 0.1})
	if d.Verdict != Regression || len(d.Findings) != 2 || d.Findings[0].Regression || !d.Findings[1].Regression {
		t.Errorf("budget 0.1: verdict %s, findings %+v; want T004 within it, T006 over it", d.Verdict, d.Findings)
	}
	if p := d.Findings[1].P; !near(p, binomialUpper(6, 10, 0.1), 1e-12) || p > BudgetAlpha {
		t.Errorf("T006 over its budget: p %v", p)
	}
	pairs[5].Candidate = withViolation(8, 10, 1, "email sent")
	if d := decide(t, pairs, Options{ForbiddenBudget: 0.1}); d.Verdict != NoChange {
		t.Errorf("budget 0.1, 1 of 10 in two tasks: verdict %s, want no change", d.Verdict)
	}
	// a forbidden effect is never averaged away, even behind a better pass rate
	pairs = pairsOf(10, repeat(8, [2]int{2, 10})...)
	pairs[0].Candidate = withViolation(9, 10, 1, "x")
	if d := decide(t, pairs, Options{}); d.RatesVerdict != Improvement || d.Verdict != Regression {
		t.Errorf("verdict %s (rates %s), want regression over an improvement", d.Verdict, d.RatesVerdict)
	}
}

// ending gives a task's distribution t runs that ended with reason.
func ending(pass, n, t int, reason string) *Distribution {
	d := counted(pass, n)
	d.Terminations = map[string]int{Completed: n - t}
	if n == t {
		d.Terminations = map[string]int{}
	}
	d.Terminations[reason] = t
	return d
}

func TestDecideTerminations(t *testing.T) {
	pairs := pairsOf(10, repeat(3, [2]int{8, 8})...)
	pairs[1].Candidate = ending(8, 10, 7, Timeout)    // 0 → 7 of 10: named
	pairs[2].Baseline = ending(8, 10, 2, AgentError)  // 2 → 3 of 10: tolerated
	pairs[2].Candidate = ending(8, 10, 3, AgentError) //
	d := decide(t, pairs, Options{})
	if len(d.Findings) != 2 || d.Findings[0].Task != "" {
		t.Fatalf("findings %+v, want the group's and one task's", d.Findings)
	}
	// over the group: 7 of 30 against 0 of 30, not adjusted
	if g := d.Findings[0]; g.Label != Timeout || g.Candidate != 7 || g.CandidateRuns != 30 || !near(g.P, FisherGreater(Table{7, 30, 0, 30}), 1e-12) {
		t.Errorf("group finding %+v", g)
	}
	f := d.Findings[1]
	// one-sided Fisher of 7/10 against 0/10, Holm-adjusted over 3 tasks
	wantP := 3 * FisherGreater(Table{7, 10, 0, 10})
	if f.Task != "T002" || f.Kind != TerminationRise || f.Label != Timeout || f.Candidate != 7 || f.Baseline != 0 || !near(f.P, wantP, 1e-12) || f.Regression {
		t.Errorf("finding %+v, want T002 timeout 7 of 10 (p %v), not deciding", f, wantP)
	}
	if d.Verdict != NoChange {
		t.Errorf("verdict %s: a termination rise is named, it does not decide alone", d.Verdict)
	}
	// a rise spread over the tasks, too small for any one of them, is
	// seen over the group: 0 → 2 of 10 in each of 8 tasks
	pairs = pairsOf(10, repeat(8, [2]int{8, 8})...)
	for i := range pairs {
		pairs[i].Candidate = ending(8, 10, 2, Timeout)
	}
	d = decide(t, pairs, Options{})
	if len(d.Findings) != 1 || d.Findings[0].Task != "" || d.Findings[0].Candidate != 16 {
		t.Errorf("findings %+v, want the group's alone (16 of 80)", d.Findings)
	}
	// 4 new timeouts in 10 runs over one task is named (p 0.043); over 24 tasks Holm asks for more
	one := pairsOf(10, [2]int{8, 8})
	one[0].Candidate = ending(8, 10, 4, Timeout)
	if d := decide(t, one, Options{}); len(d.Findings) != 1 {
		t.Errorf("one task, 0 → 4 timeouts: findings %+v", d.Findings)
	}
	many := pairsOf(10, repeat(24, [2]int{8, 8})...)
	many[0].Candidate = ending(8, 10, 4, Timeout)
	if d := decide(t, many, Options{}); len(d.Findings) != 0 {
		t.Errorf("24 tasks, 0 → 4 timeouts in one: findings %+v", d.Findings)
	}
}

func TestDecideErrors(t *testing.T) {
	pairs := pairsOf(10, repeat(4, [2]int{8, 6})...)
	pairs[1].Candidate = &Distribution{Runs: 10, Verdicts: Verdicts{Error: 10}}
	pairs[2].Candidate = counted(6, 10)
	pairs[2].Candidate.Runs, pairs[2].Candidate.Verdicts.Error = 12, 2
	d := decide(t, pairs, Options{})
	if d.Tasks != 3 || !cmp.Equal(d.Excluded, []string{"T002"}) || d.CandidateErrors != 12 || d.CandidateRuns != 42 || d.BaselineErrors != 0 {
		t.Errorf("tasks %d excluded %v errors %d of %d", d.Tasks, d.Excluded, d.CandidateErrors, d.CandidateRuns)
	}
	if tr := d.PerTask[2]; tr.Candidate.Graded != 10 || tr.Candidate.Rate != 0.6 || tr.Candidate.Errors != 2 {
		t.Errorf("errors are left out of the pass rate: %+v", tr.Candidate)
	}
	if d.PerTask[1].Compared || d.PerTask[1].Candidate.Wilson != (Interval{0, 1}) {
		t.Errorf("an all-error side: %+v", d.PerTask[1])
	}

	all := pairsOf(10, [2]int{8, 8})
	all[0].Candidate = &Distribution{Runs: 10, Verdicts: Verdicts{Error: 10}}
	bad := counted(3, 10)
	bad.Verdicts.Pass = 4
	for _, c := range []struct {
		name    string
		pairs   []Pair
		opts    Options
		wantErr string
	}{
		{"no tasks", nil, Options{}, "no tasks to compare"},
		{"a task twice", append(pairsOf(10, [2]int{1, 1}), pairsOf(10, [2]int{2, 2})...), Options{}, `task "T001" is given twice`},
		{"no baseline", []Pair{{Task: "X", Candidate: counted(1, 2)}}, Options{}, `task "X" has no baseline distribution`},
		{"inconsistent counts", []Pair{{Task: "X", Baseline: counted(1, 2), Candidate: bad}}, Options{}, `task "X": candidate: the verdicts add up to 11`},
		{"nothing graded", all, Options{}, "no task has graded runs on both sides (10 of 10 candidate runs"},
		{"negative margin", pairsOf(10, [2]int{1, 1}), Options{Margin: -0.1}, "margin -0.1 is out of range"},
		{"margin of 1", pairsOf(10, [2]int{1, 1}), Options{Margin: 1}, "margin 1 is out of range"},
		{"k of 0", pairsOf(10, [2]int{1, 1}), Options{K: []int{0}}, "k of pass^k is 0"},
		{"too many k", pairsOf(10, [2]int{1, 1}), Options{K: []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17}}, "17 values of k for pass^k; give at most 16"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decide(c.pairs, c.opts)
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Fatalf("Decide = %v, want an error with %q", err, c.wantErr)
			}
		})
	}
}

func TestDecidePassK(t *testing.T) {
	pairs := pairsOf(10, [2]int{10, 7}, [2]int{5, 5})
	pairs = append(pairs, Pair{"T003", counted(2, 4), counted(4, 4)}) // too few runs for k = 5
	d := decide(t, pairs, Options{K: []int{5, 1, 5}})
	if got := d.PerTask[0].Candidate.PassK; len(got) != 2 || got[1].K != 5 || !near(got[1].PassHat, 21.0/252, 1e-12) || got[1].PassAt != 1 {
		t.Errorf("T001 candidate pass^k %+v, want pass^5 = C(7,5)/C(10,5) = 21/252", got)
	}
	if got := d.PerTask[2].Baseline.PassK; len(got) != 1 || got[0].K != 1 {
		t.Errorf("T003 has 4 runs: pass^k %+v, want k = 1 only", got)
	}
	want := []PassKMean{
		{K: 1, Tasks: 3, Baseline: PassK{1, (1 + 0.5 + 0.5) / 3, (1 + 0.5 + 0.5) / 3}, Candidate: PassK{1, (0.7 + 0.5 + 1) / 3, (0.7 + 0.5 + 1) / 3}},
		{K: 5, Tasks: 2, Baseline: PassK{5, (1 + 1.0/252) / 2, (1 + 251.0/252) / 2}, Candidate: PassK{5, (21.0/252 + 1.0/252) / 2, (1 + 251.0/252) / 2}},
	}
	if diff := cmp.Diff(want, d.PassK, cmp.Comparer(func(a, b float64) bool { return near(a, b, 1e-12) })); diff != "" {
		t.Errorf("overall pass^k (-want +got):\n%s", diff)
	}
}

// The same outcomes give the same decision and the same bytes, in whatever
// order the tasks come.
func TestDecideDeterministic(t *testing.T) {
	pairs := pairsOf(10, [2]int{9, 3}, [2]int{8, 2}, [2]int{10, 5}, [2]int{7, 2})
	pairs[2].Candidate = withViolation(5, 10, 2, "leak")
	a := decide(t, pairs, Options{Margin: 0.02})
	reversed := []Pair{pairs[3], pairs[2], pairs[1], pairs[0]}
	b := decide(t, reversed, Options{Margin: 0.02})
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) || a.Summary().String() != b.Summary().String() {
		t.Fatalf("the order of the tasks changed the decision:\n%s\n%s", ja, jb)
	}
	if pairs[0].Task != "T001" {
		t.Error("Decide reordered the caller's pairs")
	}
}

// A task's own exact test decides: one task of eight that collapses is a
// regression though the mean moves within noise, and each task says what
// it did.
func TestDecideTaskDrop(t *testing.T) {
	pairs := pairsOf(10, append([][2]int{{10, 2}, {9, 9}, {8, 9}}, repeat(5, [2]int{8, 7})...)...)
	d := decide(t, pairs, Options{K: []int{1}})
	if d.RatesVerdict != NoChange || d.Verdict != Regression || !slices.Equal(d.Dropped, []string{"T001"}) {
		t.Fatalf("verdict %s (rates %s), dropped %q; want T001's drop alone to decide", d.Verdict, d.RatesVerdict, d.Dropped)
	}
	want := []TaskMove{Dropped, Same, WithinNoise, WithinNoise, WithinNoise, WithinNoise, WithinNoise, WithinNoise}
	for i, tr := range d.PerTask {
		if tr.Move != want[i] {
			t.Errorf("%s: %s, want %s", tr.Task, tr.Move, want[i])
		}
	}
	// the drop's own one-sided test: P(baseline ≥ 10 | 12 passes of 20)
	if p := d.PerTask[0].DropP; !near(p, 45.0/125970, 1e-12) {
		t.Errorf("T001 drop p %v, want C(10,2)/C(20,12)", p)
	}
	if !strings.HasPrefix(d.Summary().Line, "regression: T001 dropped 10/10 → 2/10; pass rate ") {
		t.Errorf("the cause does not lead: %q", d.Summary().Line)
	}
	// a task that rose is named, and decides nothing alone
	pairs = pairsOf(10, append([][2]int{{1, 10}}, repeat(7, [2]int{8, 8})...)...)
	if d := decide(t, pairs, Options{K: []int{1}}); d.Verdict != NoChange || !slices.Equal(d.Rose, []string{"T001"}) || d.PerTask[0].Move != Rose {
		t.Errorf("a rise: verdict %s, rose %q", d.Verdict, d.Rose)
	}
}

func TestTaroneHolm(t *testing.T) {
	for _, c := range []struct {
		name    string
		p, minP []float64
		want    []float64
	}{
		// every task can reach the level: plain Holm
		{"all testable", []float64{0.001, 0.02, 0.3}, []float64{1e-5, 1e-5, 1e-5}, []float64{0.003, 0.04, 0.3}},
		// two tasks cannot reach 0.05/2: the family is the one that can
		{"one testable", []float64{0.004, 0.6, 0.7}, []float64{1e-5, 0.05, 0.2}, []float64{0.004, 1, 1}},
		// none can reach the level at all
		{"none", []float64{0.3, 0.6}, []float64{0.1, 0.2}, []float64{1, 1}},
		// K = 2: three reach 0.05, two reach 0.025
		{"K=2", []float64{0.01, 0.012, 0.2}, []float64{0.001, 0.002, 0.04}, []float64{0.02, 0.02, 1}},
	} {
		got := taroneHolm(c.p, c.minP, 0.05)
		if diff := cmp.Diff(c.want, got, cmp.Comparer(func(a, b float64) bool { return near(a, b, 1e-12) })); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}

// A single task is decided by its exact tests alone: its false alarm rate
// is within the budget in every shape, the smallest included.
func TestDecideSingleTaskExact(t *testing.T) {
	for _, n := range []int{1, 2, 3, 5, 8, 10} {
		// the exact chance of an alarm at the worst true rate, summed over
		// every outcome of the two sides
		var alarms [][2]int
		for b := 0; b <= n; b++ {
			for c := 0; c <= n; c++ {
				if d := decide(t, []Pair{{"T", counted(b, n), counted(c, n)}}, Options{K: []int{1}}); d.Verdict != NoChange {
					alarms = append(alarms, [2]int{b, c})
				}
			}
		}
		worst := 0.0
		for p := 0.01; p < 1; p += 0.01 {
			alarm := 0.0
			for _, a := range alarms {
				alarm += binomialPMF(a[0], n, p) * binomialPMF(a[1], n, p)
			}
			worst = max(worst, alarm)
		}
		if worst > Alpha+1e-12 {
			t.Errorf("1 task × %d runs: false alarm rate %.4f at its worst, over %v", n, worst, Alpha)
		}
	}
}
