package stats

import (
	"fmt"
	"math"
	"sync"
)

// Power is the chance the gate is meant to have of detecting a drop at its
// floor: 80%, at the 5% level of its 95% intervals.
const Power = 0.80

// Design is a check's shape for the power arithmetic.
type Design struct {
	// Tasks is the number of tasks (≥ 1), Runs the graded runs of each
	// task on each side (≥ 1; RunsFor ignores it).
	Tasks int
	Runs  int
	// Rates are the baseline's per-task pass rates, one per task, each in
	// [0, 1]; nil for the worst case, every rate 0.5.
	Rates []float64
	// Margin is Options.Margin.
	Margin float64
}

// Floor is the smallest drop in mean pass rate a check detects with 80%
// power at the 5% level.
type Floor struct {
	Tasks int `json:"tasks"`
	// MinRuns and MaxRuns are the fewest and most graded runs of a task
	// side (equal when every task ran as often).
	MinRuns int `json:"minRuns"`
	MaxRuns int `json:"maxRuns"`
	// Drop is the floor, a share from 0 to 1, when Detectable; false when
	// no drop, even from every pass to none, can be told from noise.
	Drop       float64 `json:"drop"`
	Detectable bool    `json:"detectable"`
}

func (d Design) check() error {
	switch {
	case d.Tasks < 1:
		return fmt.Errorf("power: %d tasks; a check has at least 1", d.Tasks)
	case d.Runs < 1 || d.Runs > MaxRuns:
		return fmt.Errorf("power: %d runs; give 1 to %d", d.Runs, MaxRuns)
	case math.IsNaN(d.Margin) || d.Margin < 0 || d.Margin >= 1:
		return fmt.Errorf("power: margin %v is out of range; give 0 to below 1", d.Margin)
	case d.Rates != nil && len(d.Rates) != d.Tasks:
		return fmt.Errorf("power: %d pass rates for %d tasks; give one per task, or none", len(d.Rates), d.Tasks)
	}
	for _, r := range d.Rates {
		if math.IsNaN(r) || r < 0 || r > 1 {
			return fmt.Errorf("power: pass rate %v is not between 0 and 1", r)
		}
	}
	return nil
}

// DetectableDrop is the smallest drop in mean pass rate that a check of
// d.Tasks tasks × d.Runs runs on each side detects with 80% power at the 5%
// level (two-sided).
//
// The arithmetic (docs/statistics.md): the per-task difference of pass
// rates has, under binomial noise, the variance v = p̄(1−p̄)(1/n_b + 1/n_c),
// p̄ being the task's rate pooled over both sides (at most 1/4); the mean
// of T differences has the standard error SE = √(Σv)/T. A paired t test on
// T−1 degrees of freedom detects a mean drop Δ with 80% power when
// Δ − margin ≥ m·SE, m the noncentrality at which the test's power is 80%
// (powerMultiplier; z₀.₉₇₅ + z₀.₈₀ = 2.80 for one task, 3.04 for 24 tasks,
// 12.0 for 2).
// Without rates every p̄ is 1/2, the worst case, and Δ follows at once.
// With rates each task's candidate rate is modelled as max(p − δ, 0), and
// the smallest δ (in steps of 0.001, searched in steps of 0.01 first) that
// meets the condition gives Δ = mean of p − max(p − δ, 0).
func DetectableDrop(d Design) (Floor, error) {
	if err := d.check(); err != nil {
		return Floor{}, err
	}
	n := make([]int, d.Tasks)
	for i := range n {
		n[i] = d.Runs
	}
	return floorOf(d.Rates, n, n, d.Margin), nil
}

// RunsFor is the fewest runs per task and side (up to MaxRuns) with which
// a check of d.Tasks tasks detects a drop in mean pass rate of drop (such
// as 0.1) with 80% power at the 5% level; d.Runs is ignored. An error says
// when no number of runs can: a drop at or below the margin, or too few
// tasks for any run count to make up.
func RunsFor(d Design, drop float64) (int, error) {
	d.Runs = 1
	if err := d.check(); err != nil {
		return 0, err
	}
	if math.IsNaN(drop) || drop <= d.Margin || drop > 1 {
		return 0, fmt.Errorf("power: a drop of %v cannot be detected with a margin of %v; give a drop above the margin, up to 1", drop, d.Margin)
	}
	enough := func(runs int) bool {
		d.Runs = runs
		f, _ := DetectableDrop(d)
		return f.Detectable && f.Drop <= drop
	}
	if !enough(MaxRuns) {
		return 0, fmt.Errorf("power: even %d runs of %d tasks cannot detect a drop of %.0f points; add tasks", MaxRuns, d.Tasks, 100*drop)
	}
	lo, hi := 1, MaxRuns // enough(hi); the floor falls as runs grow
	for lo < hi {
		mid := lo + (hi-lo)/2
		if enough(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo, nil
}

// floorOf computes the floor for tasks with baseline rates (nil: the worst
// case) and nb, nc graded runs on each side.
func floorOf(rates []float64, nb, nc []int, margin float64) Floor {
	t := len(nb)
	f := Floor{Tasks: t, MinRuns: math.MaxInt}
	for i := range nb {
		f.MinRuns = min(f.MinRuns, nb[i], nc[i])
		f.MaxRuns = max(f.MaxRuns, nb[i], nc[i])
	}
	if t == 1 {
		return singleFloor(f, rates, nb[0], nc[0], margin)
	}
	z := powerMultiplier(t)
	tf := float64(t)
	if rates == nil {
		v := 0.0
		for i := range nb {
			v += 0.25 * (1/float64(nb[i]) + 1/float64(nc[i]))
		}
		drop := margin + z*math.Sqrt(v)/tf
		if drop <= 1 {
			f.Drop, f.Detectable = drop, true
		}
		return f
	}
	// the smallest δ in steps of 0.001 that meets the condition: found in
	// steps of 0.01, then of 0.001 below the first that does
	meets := func(delta float64) (float64, bool) {
		mean, v := 0.0, 0.0
		for i, p := range rates {
			q := max(p-delta, 0)
			mean += p - q
			b, c := float64(nb[i]), float64(nc[i])
			pooled := (p*b + q*c) / (b + c)
			v += pooled * (1 - pooled) * (1/b + 1/c)
		}
		mean /= tf
		return mean, mean > margin && mean-margin >= z*math.Sqrt(v)/tf
	}
	for coarse := 10; coarse <= 1000; coarse += 10 {
		if _, ok := meets(float64(coarse) / 1000); !ok {
			continue
		}
		for step := coarse - 9; step <= coarse; step++ {
			if mean, ok := meets(float64(step) / 1000); ok {
				f.Drop, f.Detectable = mean, true
				return f
			}
		}
	}
	return f
}

// singleFloor is the floor of a check of one task, which its exact test
// decides (a drop when its one-sided Fisher p-value is at most TaskAlpha,
// the larger of its two shares): the smallest drop δ, in steps of 0.001,
// at which the candidate's runs at the rate p − δ give that p-value with
// 80% probability, against a baseline of round(p·nb) passes (p the rate,
// ½ when none is given). The power is exact: a sum over the candidate's
// pass counts.
func singleFloor(f Floor, rates []float64, nb, nc int, margin float64) Floor {
	p := 0.5
	if rates != nil {
		p = rates[0]
	}
	b := int(math.Round(p * float64(nb)))
	power := func(delta float64) float64 {
		q := max(p-delta, 0)
		sum := 0.0
		for c := 0; c <= nc; c++ {
			if FisherGreater(Table{b, nb, c, nc}) <= max(MeanAlpha/2, TaskAlpha) {
				sum += binomialPMF(c, nc, q)
			}
		}
		return sum
	}
	meets := func(step int) bool {
		delta := float64(step) / 1000
		return delta > margin && min(delta, p) > margin && power(delta) >= Power
	}
	for coarse := 10; coarse <= 1000; coarse += 10 {
		if !meets(coarse) {
			continue
		}
		for step := coarse - 9; step <= coarse; step++ {
			if meets(step) {
				f.Drop, f.Detectable = min(float64(step)/1000, p), true
				return f
			}
		}
	}
	return f
}

// binomialPMF is P(X = k) for X ~ Binomial(n, p).
func binomialPMF(k, n int, p float64) float64 {
	switch {
	case p <= 0:
		return b2f(k == 0)
	case p >= 1:
		return b2f(k == n)
	}
	return math.Exp(logChoose(n, k) + float64(k)*math.Log(p) + float64(n-k)*math.Log1p(-p))
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// powerMultiplier is the standardised drop (drop / standard error) that
// the gate detects with 80% power at the 5% level: for one task the normal
// quantiles' sum z₀.₉₇₅ + z₀.₈₀; for T ≥ 2 tasks the noncentrality δ at
// which a two-sided t test on T−1 degrees of freedom rejects with
// probability 0.8, P(T'(δ) > t₀.₉₇₅) = 0.8 for the noncentral t T', found
// by bisection over the exact power integral (noncentralPower). The usual
// shortcut t₀.₉₇₅ + t₀.₈₀ falls short with few tasks.
func powerMultiplier(tasks int) float64 { return powerMultiplierAt(tasks, 1-MeanAlpha/2) }

// powerMultiplierAt is powerMultiplier for a two-sided test whose
// critical value is the q quantile (0.975 for 5%).
func powerMultiplierAt(tasks int, q float64) float64 {
	if tasks < 2 {
		return NormalQuantile(q) + NormalQuantile(Power)
	}
	df := tasks - 1
	multipliers.Lock()
	defer multipliers.Unlock()
	key := [2]float64{float64(df), q}
	if m, ok := multipliers.m[key]; ok {
		return m
	}
	crit := TQuantile(q, float64(df))
	lo, hi := crit, crit+NormalQuantile(Power)*4+4
	for range 60 {
		mid := (lo + hi) / 2
		if noncentralPower(mid, float64(df), crit) < Power {
			lo = mid
		} else {
			hi = mid
		}
	}
	if multipliers.m == nil {
		multipliers.m = map[[2]float64]float64{}
	}
	multipliers.m[key] = hi
	return hi
}

// multipliers caches powerMultiplier by degrees of freedom.
var multipliers struct {
	sync.Mutex
	m map[[2]float64]float64
}

// noncentralPower is P(T' > crit) for T' = (Z + ncp)/U, Z standard normal
// and U = √(V/df), V chi-squared on df degrees of freedom: the integral of
// Φ(ncp − crit·u) against U's density
// f(u) = 2(df/2)^(df/2)/Γ(df/2) · u^(df−1) · e^(−df·u²/2), by Simpson's
// rule over the range of U that holds its mass (the other tail, P(T' < −crit), is negligible and
// left out).
func noncentralPower(ncp, df, crit float64) float64 {
	// U has mean about 1 and standard deviation about 1/√(2·df): ten of
	// them either side hold all of its mass that matters
	const steps = 1000 // even
	spread := 10 / math.Sqrt(2*df)
	bottom, top := max(0, 1-spread), 1+spread
	h := (top - bottom) / steps
	lg, _ := math.Lgamma(df / 2)
	logC := math.Log(2) + df/2*math.Log(df/2) - lg
	f := func(u float64) float64 {
		if u == 0 {
			if df == 1 {
				return math.Exp(logC) * normalCDF(ncp)
			}
			return 0
		}
		return math.Exp(logC+(df-1)*math.Log(u)-df*u*u/2) * normalCDF(ncp-crit*u)
	}
	sum := f(bottom) + f(top)
	for i := 1; i < steps; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		sum += w * f(bottom+float64(i)*h)
	}
	return sum * h / 3
}

// normalCDF is Φ(x), the standard normal distribution function.
func normalCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

// Sentence says the floor for a report: "8 tasks × 10 runs: a uniform
// drop of 26 points is detected 80% of the time". Points are rounded up, so
// the sentence never claims a finer check than it is.
func (f Floor) Sentence() string {
	shape := fmt.Sprintf("%s × %s", plural(f.Tasks, "task"), f.runsText())
	return shape + ": " + f.Power()
}

// Power is what the floor means: "a uniform drop of 26 points is detected
// 80% of the time", or that no uniform drop is.
func (f Floor) Power() string {
	if !f.Detectable {
		return "the check cannot promise to detect any uniform drop 80% of the time; add tasks or runs"
	}
	return fmt.Sprintf("a uniform drop of %s is detected 80%% of the time", plural(f.Points(), "point"))
}

// Points is the floor in points (hundredths of pass rate), rounded up;
// 100 when no drop is detectable.
func (f Floor) Points() int {
	if !f.Detectable {
		return 100
	}
	return int(math.Ceil(f.Drop*100 - 1e-9))
}

// runsText is "10 runs", or "8–10 runs" when tasks ran unequally often.
func (f Floor) runsText() string {
	if f.MinRuns == f.MaxRuns {
		return plural(f.MaxRuns, "run")
	}
	return fmt.Sprintf("%d–%d runs", f.MinRuns, f.MaxRuns)
}

func plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
