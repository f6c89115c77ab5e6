package stats

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Conclusion is what the gate says about a candidate against its baseline.
type Conclusion string

const (
	// Regression: the candidate is worse (exit 1).
	Regression Conclusion = "regression"
	// Improvement: the candidate is better (exit 1 too: the baseline is
	// recorded again deliberately).
	Improvement Conclusion = "improvement"
	// NoChange: no change the check could detect.
	NoChange Conclusion = "no_change"
)

// Pair is one task's baseline and candidate distributions.
type Pair struct {
	Task      string
	Baseline  *Distribution
	Candidate *Distribution
}

// Options tune Decide.
type Options struct {
	// Margin (0 ≤ Margin < 1) is the change in mean pass rate too small to
	// matter: a regression needs the interval below −Margin, an improvement
	// above +Margin. 0, the default, counts any change the check can tell
	// from noise.
	Margin float64
	// K lists the k of pass^k and pass@k, at most MaxK of them; nil means
	// 1, 3 and 5. A task side with fewer graded runs than k has no value
	// for it.
	K []int
	// ForbiddenBudget (0 ≤ b < 1) is the share of runs a confirmed
	// forbidden effect is allowed: 0, the default, allows none (any
	// candidate run with one is a regression); above 0, a regression when
	// the exact test says the effect's rate is above it.
	ForbiddenBudget float64
}

// MaxK is the most values of k a decision computes pass^k and pass@k for.
const MaxK = 16

// Decision is the gate's decision over a set of tasks, and the diagnostics
// that go with it. It is plain data for the reports: the same
// distributions give the same Decision.
type Decision struct {
	// Verdict decides the gate: Regression when the mean pass rate's
	// interval lies below −Margin, any task's own exact test says it
	// dropped (Dropped) or a severe finding is one on its own (a Finding
	// with Regression set); Improvement when the interval lies above
	// +Margin and nothing is a regression; otherwise NoChange.
	Verdict Conclusion `json:"verdict"`
	// RatesVerdict is what the mean pass rate alone says.
	RatesVerdict Conclusion `json:"ratesVerdict"`
	// Dropped lists the tasks whose own exact test says they dropped, and
	// Rose those whose test says they rose (which alone decides nothing).
	Dropped []string `json:"dropped"`
	Rose    []string `json:"rose"`
	// MeanAlpha and TaskAlpha are the false-alarm budget's shares: the
	// two-sided level of the mean's interval, and that of the tasks' own
	// tests over all of them.
	MeanAlpha float64 `json:"meanAlpha"`
	TaskAlpha float64 `json:"taskAlpha"`
	Margin    float64 `json:"margin"`
	// Tasks is the number of tasks compared: those with graded runs on
	// both sides. Excluded lists the others.
	Tasks    int      `json:"tasks"`
	Excluded []string `json:"excluded"`
	// BaselineRate and CandidateRate are the mean per-task pass rates over
	// the compared tasks; Difference is CandidateRate − BaselineRate, the
	// mean of the paired per-task differences.
	BaselineRate  float64 `json:"baselineRate"`
	CandidateRate float64 `json:"candidateRate"`
	Difference    float64 `json:"difference"`
	// Interval is the gate's interval of Difference, at the level
	// 1 − MeanAlpha (96%): the hull of
	// TasksInterval and RunsInterval, so that a change is declared only
	// when both say so.
	Interval Interval `json:"interval"`
	// TasksInterval is the t interval of the mean of the per-task
	// differences (the tasks' spread); nil with a single task.
	TasksInterval *Interval `json:"tasksInterval"`
	// RunsInterval is the interval the runs' binomial noise alone allows:
	// the MOVER combination of each side's Wilson interval. It keeps the
	// gate honest when the tasks happen to agree (no spread).
	RunsInterval Interval `json:"runsInterval"`
	// Floor is the smallest drop in mean pass rate this check could
	// detect, from the baseline's rates and the runs compared.
	Floor Floor `json:"floor"`
	// Findings are the severe effects, never averaged away.
	Findings []Alarm `json:"findings"`
	// PassK is pass^k and pass@k over the tasks, for each k.
	PassK []PassKMean `json:"passK"`
	// BaselineRuns, CandidateRuns count all runs of the selected tasks;
	// BaselineErrors, CandidateErrors the infrastructure errors among
	// them (not graded, left out of the pass rates).
	BaselineRuns    int `json:"baselineRuns"`
	BaselineErrors  int `json:"baselineErrors"`
	CandidateRuns   int `json:"candidateRuns"`
	CandidateErrors int `json:"candidateErrors"`
	// PerTask is each task's diagnostics, sorted by task.
	PerTask []TaskResult `json:"perTask"`
}

// TaskResult is one task's counts and tests; its own exact test of a drop
// decides the gate (Move Dropped), the rest are diagnostics.
type TaskResult struct {
	Task      string `json:"task"`
	Baseline  Side   `json:"baseline"`
	Candidate Side   `json:"candidate"`
	// Compared is true when both sides have graded runs; the fields below
	// are set only then.
	Compared bool `json:"compared"`
	// Difference is the candidate's pass rate minus the baseline's.
	Difference float64 `json:"difference"`
	// FisherP is the two-sided p-value of Fisher's exact test of the two
	// sides' passes; HolmP is it adjusted by Holm's method for the number
	// of tasks compared.
	FisherP float64 `json:"fisherP"`
	HolmP   float64 `json:"holmP"`
	// DropP is the one-sided Fisher exact p-value that the candidate's
	// pass rate is lower than the baseline's, and DropAdjusted it adjusted
	// over the tasks compared (Tarone's family, Holm's steps: 1 for a task
	// whose margins cannot reach the level); RiseP and RiseAdjusted the
	// same the other way.
	DropP        float64 `json:"dropP"`
	DropAdjusted float64 `json:"dropAdjusted"`
	RiseP        float64 `json:"riseP"`
	RiseAdjusted float64 `json:"riseAdjusted"`
	// Move is what the task did: Dropped or Rose when its adjusted test
	// is at most TaskAlpha, WithinNoise when its rate moved less than
	// that, Same when it did not move; "" when not compared.
	Move TaskMove `json:"move,omitempty"`
}

// Side is one side's counts for a task.
type Side struct {
	Runs   int `json:"runs"`
	Errors int `json:"errors"`
	Graded int `json:"graded"`
	Passed int `json:"passed"`
	// Rate is Passed/Graded, and Wilson its 95% interval (0 and 0 to 1
	// when no run was graded).
	Rate   float64  `json:"rate"`
	Wilson Interval `json:"wilson"`
	// PassK holds pass^k and pass@k for each k up to Graded.
	PassK []PassK `json:"passK"`
}

// PassK is pass^k (all of k runs pass) and pass@k (at least one does).
type PassK struct {
	K       int     `json:"k"`
	PassHat float64 `json:"passHatK"`
	PassAt  float64 `json:"passAtK"`
}

// PassKMean is the mean of per-task pass^k and pass@k over the tasks
// whose two sides both have at least k graded runs.
type PassKMean struct {
	K         int   `json:"k"`
	Tasks     int   `json:"tasks"`
	Baseline  PassK `json:"baseline"`
	Candidate PassK `json:"candidate"`
}

// Decide compares the candidate's distributions with the baseline's over
// the tasks of pairs. It is an error when pairs is empty, a task is given
// twice or a distribution is missing or does not Validate, the options are
// out of range, or no task has graded runs on both sides (the
// infrastructure failed: see Infrastructure).
func Decide(pairs []Pair, opts Options) (*Decision, error) {
	ks, err := opts.check()
	if err != nil {
		return nil, err
	}
	if len(pairs) == 0 {
		return nil, fmt.Errorf("decide: no tasks to compare")
	}
	pairs = slices.Clone(pairs)
	slices.SortFunc(pairs, func(a, b Pair) int { return strings.Compare(a.Task, b.Task) })
	for i, p := range pairs {
		if i > 0 && pairs[i-1].Task == p.Task {
			return nil, fmt.Errorf("decide: task %q is given twice", p.Task)
		}
		for _, side := range []struct {
			name string
			d    *Distribution
		}{{"baseline", p.Baseline}, {"candidate", p.Candidate}} {
			if side.d == nil {
				return nil, fmt.Errorf("decide: task %q has no %s distribution", p.Task, side.name)
			}
			if err := side.d.Validate(); err != nil {
				return nil, fmt.Errorf("decide: task %q: %s: %w", p.Task, side.name, err)
			}
		}
	}
	d := &Decision{Margin: opts.Margin, Excluded: []string{}, Findings: []Alarm{}, PassK: []PassKMean{},
		Dropped: []string{}, Rose: []string{}, MeanAlpha: MeanAlpha, TaskAlpha: TaskAlpha}
	var compared []int // indices into PerTask
	for _, p := range pairs {
		tr := TaskResult{Task: p.Task, Baseline: sideOf(p.Baseline, ks), Candidate: sideOf(p.Candidate, ks)}
		d.BaselineRuns += tr.Baseline.Runs
		d.BaselineErrors += tr.Baseline.Errors
		d.CandidateRuns += tr.Candidate.Runs
		d.CandidateErrors += tr.Candidate.Errors
		if tr.Baseline.Graded > 0 && tr.Candidate.Graded > 0 {
			tr.Compared = true
			tr.Difference = tr.Candidate.Rate - tr.Baseline.Rate
			tr.FisherP = FisherTwoSided(Table{tr.Candidate.Passed, tr.Candidate.Graded, tr.Baseline.Passed, tr.Baseline.Graded})
			compared = append(compared, len(d.PerTask))
		} else {
			d.Excluded = append(d.Excluded, p.Task)
		}
		d.PerTask = append(d.PerTask, tr)
	}
	if len(compared) == 0 {
		return nil, fmt.Errorf("decide: no task has graded runs on both sides (%d of %d candidate runs and %d of %d baseline runs are infrastructure errors)",
			d.CandidateErrors, d.CandidateRuns, d.BaselineErrors, d.BaselineRuns)
	}
	ps := make([]float64, len(compared))
	for j, i := range compared {
		ps[j] = d.PerTask[i].FisherP
	}
	for j, adj := range Holm(ps) {
		d.PerTask[compared[j]].HolmP = adj
	}
	d.Tasks = len(compared)
	d.intervals(compared)
	d.RatesVerdict = verdictOf(d.Interval, opts.Margin)
	d.taskTests(compared)
	if d.Tasks == 1 {
		// one task: the mean is the task, and its exact tests decide
		t := d.PerTask[compared[0]]
		d.RatesVerdict = NoChange
		switch {
		case t.DropP <= MeanAlpha/2 && -t.Difference > opts.Margin:
			d.RatesVerdict = Regression
		case t.RiseP <= MeanAlpha/2 && t.Difference > opts.Margin:
			d.RatesVerdict = Improvement
		}
	}
	d.passK(compared, ks)
	d.Findings = findings(pairs, d.PerTask, opts)
	d.Verdict = d.RatesVerdict
	if len(d.Dropped) > 0 {
		d.Verdict = Regression
	}
	for _, f := range d.Findings {
		if f.Regression {
			d.Verdict = Regression
		}
	}
	d.round()
	return d, nil
}

// taskTests runs each compared task's own one-sided exact tests, a drop
// and a rise, adjusts them over the tasks (taroneHolm at TaskAlpha) and
// sets each task's Move.
func (d *Decision) taskTests(compared []int) {
	dropP, dropMin := make([]float64, len(compared)), make([]float64, len(compared))
	riseP, riseMin := make([]float64, len(compared)), make([]float64, len(compared))
	for j, i := range compared {
		b, c := d.PerTask[i].Baseline, d.PerTask[i].Candidate
		down := Table{b.Passed, b.Graded, c.Passed, c.Graded} // the baseline's share greater
		up := Table{c.Passed, c.Graded, b.Passed, b.Graded}
		dropP[j], dropMin[j] = FisherGreater(down), minOneSided(down)
		riseP[j], riseMin[j] = FisherGreater(up), minOneSided(up)
	}
	dropAdj := taroneHolm(dropP, dropMin, TaskAlpha)
	riseAdj := taroneHolm(riseP, riseMin, TaskAlpha)
	for j, i := range compared {
		t := &d.PerTask[i]
		t.DropP, t.DropAdjusted, t.RiseP, t.RiseAdjusted = dropP[j], dropAdj[j], riseP[j], riseAdj[j]
		switch {
		case t.DropAdjusted <= TaskAlpha && -t.Difference > d.Margin:
			t.Move = Dropped
			d.Dropped = append(d.Dropped, t.Task)
		case t.RiseAdjusted <= TaskAlpha && t.Difference > d.Margin:
			t.Move = Rose
			d.Rose = append(d.Rose, t.Task)
		case t.Baseline.Passed*t.Candidate.Graded != t.Candidate.Passed*t.Baseline.Graded:
			t.Move = WithinNoise
		default:
			t.Move = Same
		}
	}
}

func (o Options) check() ([]int, error) {
	if math.IsNaN(o.Margin) || o.Margin < 0 || o.Margin >= 1 {
		return nil, fmt.Errorf("decide: margin %v is out of range; give a change in pass rate from 0 to below 1, such as 0.05", o.Margin)
	}
	if math.IsNaN(o.ForbiddenBudget) || o.ForbiddenBudget < 0 || o.ForbiddenBudget >= 1 {
		return nil, fmt.Errorf("decide: forbidden-effect budget %v is out of range; give a share of the runs from 0 to below 1, such as 0.02", o.ForbiddenBudget)
	}
	ks := o.K
	if ks == nil {
		ks = []int{1, 3, 5}
	}
	ks = slices.Clone(ks)
	slices.Sort(ks)
	ks = slices.Compact(ks)
	if len(ks) > MaxK {
		return nil, fmt.Errorf("decide: %d values of k for pass^k; give at most %d", len(ks), MaxK)
	}
	for _, k := range ks {
		if k < 1 || k > MaxRuns {
			return nil, fmt.Errorf("decide: k of pass^k is %d; give 1 to %d", k, MaxRuns)
		}
	}
	return ks, nil
}

func sideOf(dist *Distribution, ks []int) Side {
	s := Side{Runs: dist.Runs, Errors: dist.Verdicts.Error, Graded: dist.Graded(), Passed: dist.Verdicts.Pass, Wilson: Interval{0, 1}, PassK: []PassK{}}
	if s.Graded == 0 {
		return s
	}
	s.Rate = float64(s.Passed) / float64(s.Graded)
	s.Wilson = Wilson(s.Passed, s.Graded)
	for _, k := range ks {
		if k > s.Graded {
			break
		}
		hat, _ := PassHatK(s.Graded, s.Passed, k)
		at, _ := PassAtK(s.Graded, s.Passed, k)
		s.PassK = append(s.PassK, PassK{K: k, PassHat: hat, PassAt: at})
	}
	return s
}

// intervals sets the mean rates, the difference, the two intervals and
// their hull, and the floor, over the compared tasks.
func (d *Decision) intervals(compared []int) {
	t := float64(len(compared))
	var sumB, sumC, lowSq, highSq float64
	rates := make([]float64, len(compared))
	nb, nc := make([]int, len(compared)), make([]int, len(compared))
	diffs := make([]float64, len(compared))
	for j, i := range compared {
		tr := d.PerTask[i]
		b, c := tr.Baseline, tr.Candidate
		sumB += b.Rate
		sumC += c.Rate
		diffs[j] = tr.Difference
		// MOVER: the difference's limits from each side's Wilson limits
		cw, bw := wilson(c.Passed, c.Graded, zMean), wilson(b.Passed, b.Graded, zMean)
		lowSq += sq(c.Rate-cw.Low) + sq(bw.High-b.Rate)
		highSq += sq(cw.High-c.Rate) + sq(b.Rate-bw.Low)
		rates[j], nb[j], nc[j] = b.Rate, b.Graded, c.Graded
	}
	d.BaselineRate, d.CandidateRate = sumB/t, sumC/t
	mean := 0.0
	for _, x := range diffs {
		mean += x
	}
	mean /= t
	d.Difference = mean
	d.RunsInterval = clampInterval(Interval{mean - math.Sqrt(lowSq)/t, mean + math.Sqrt(highSq)/t})
	d.Interval = d.RunsInterval
	if len(compared) >= 2 {
		ss := 0.0
		for _, x := range diffs {
			ss += sq(x - mean)
		}
		half := criticalT(len(compared)-1) * math.Sqrt(ss/(t-1)) / math.Sqrt(t)
		ti := clampInterval(Interval{mean - half, mean + half})
		d.TasksInterval = &ti
		d.Interval = Interval{min(ti.Low, d.RunsInterval.Low), max(ti.High, d.RunsInterval.High)}
	}
	d.Floor = floorOf(rates, nb, nc, d.Margin)
}

func (d *Decision) passK(compared []int, ks []int) {
	for _, k := range ks {
		m := PassKMean{K: k}
		for _, i := range compared {
			b, c := d.PerTask[i].Baseline, d.PerTask[i].Candidate
			if k > b.Graded || k > c.Graded {
				continue
			}
			bk, ck := passKOf(b, k), passKOf(c, k)
			m.Tasks++
			m.Baseline.PassHat += bk.PassHat
			m.Baseline.PassAt += bk.PassAt
			m.Candidate.PassHat += ck.PassHat
			m.Candidate.PassAt += ck.PassAt
		}
		if m.Tasks == 0 {
			continue
		}
		n := float64(m.Tasks)
		m.Baseline = PassK{K: k, PassHat: m.Baseline.PassHat / n, PassAt: m.Baseline.PassAt / n}
		m.Candidate = PassK{K: k, PassHat: m.Candidate.PassHat / n, PassAt: m.Candidate.PassAt / n}
		d.PassK = append(d.PassK, m)
	}
}

func passKOf(s Side, k int) PassK {
	for _, p := range s.PassK {
		if p.K == k {
			return p
		}
	}
	return PassK{K: k}
}

// verdictOf reads an interval of the difference against the margin.
func verdictOf(iv Interval, margin float64) Conclusion {
	switch {
	case iv.High < -margin:
		return Regression
	case iv.Low > margin:
		return Improvement
	}
	return NoChange
}

func clampInterval(iv Interval) Interval {
	return Interval{max(-1, iv.Low), min(1, iv.High)}
}

func sq(x float64) float64 { return x * x }

// round rounds every float of the decision to twelve significant digits, once
// the decision is taken: a report reads 0.8125, not 0.8125000000000001.
func (d *Decision) round() {
	r := func(xs ...*float64) {
		for _, x := range xs {
			*x = roundFloat(*x)
		}
	}
	r(&d.BaselineRate, &d.CandidateRate, &d.Difference, &d.Interval.Low, &d.Interval.High, &d.RunsInterval.Low, &d.RunsInterval.High, &d.Floor.Drop)
	if d.TasksInterval != nil {
		r(&d.TasksInterval.Low, &d.TasksInterval.High)
	}
	for i := range d.PassK {
		m := &d.PassK[i]
		r(&m.Baseline.PassHat, &m.Baseline.PassAt, &m.Candidate.PassHat, &m.Candidate.PassAt)
	}
	for i := range d.Findings {
		r(&d.Findings[i].P)
	}
	for i := range d.PerTask {
		t := &d.PerTask[i]
		r(&t.Difference, &t.FisherP, &t.HolmP, &t.DropP, &t.DropAdjusted, &t.RiseP, &t.RiseAdjusted)
		for _, s := range []*Side{&t.Baseline, &t.Candidate} {
			r(&s.Rate, &s.Wilson.Low, &s.Wilson.High)
			for k := range s.PassK {
				r(&s.PassK[k].PassHat, &s.PassK[k].PassAt)
			}
		}
	}
}

// roundFloat is x with twelve significant digits: the float error of the
// arithmetic (0.8125000000000001) goes, the figures stay.
func roundFloat(x float64) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 12, 64), 64)
	return v
}
