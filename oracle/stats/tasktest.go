package stats

import "math"

// The false-alarm budget of a check: Alpha in all when nothing changed,
// split between the decisions that can fail it, so that the union of them
// stays within it (Bonferroni). MeanAlpha is the two-sided level of the
// mean pass rate's interval; TaskAlpha the level of the tasks' own exact
// tests of a drop, over all the tasks at once (Tarone's family, Holm's
// steps).
const (
	Alpha     = 0.05
	MeanAlpha = 0.03
	TaskAlpha = Alpha - MeanAlpha
)

// TaskMove is what a task's own runs say it did.
type TaskMove string

const (
	// Dropped: the task's own exact test says its pass rate fell (a
	// regression on its own).
	Dropped TaskMove = "dropped"
	// Rose: the same test, the other way, says its pass rate rose.
	Rose TaskMove = "rose"
	// WithinNoise: the pass rate moved, by no more than its runs' noise.
	WithinNoise TaskMove = "within_noise"
	// Same: the pass rate did not move.
	Same TaskMove = "same"
)

// minOneSided is the smallest p-value the one-sided Fisher exact test of
// the table (A's share greater than B's) can give with its margins: that
// of the most extreme table. Conditional on the margins it is fixed, which
// is what makes Tarone's family valid.
func minOneSided(t Table) float64 {
	if !t.valid() || t.ARuns == 0 || t.BRuns == 0 {
		return 1
	}
	h := newHypergeometric(t)
	return math.Exp(h.logP(h.hi))
}

// taroneHolm adjusts one-sided exact p-values for the tasks tested at
// once, given each test's smallest attainable p-value: Tarone's family is
// the tasks whose smallest p-value could reach alpha/K for the least K
// with at most K such tasks (a task that cannot reach it is never a
// discovery and costs the others nothing), and within it Holm's steps
// adjust. A task outside the family gets 1. The family-wise false alarm
// rate, conditional on the margins, is at most alpha.
func taroneHolm(p, minP []float64, alpha float64) []float64 {
	m := len(p)
	out := make([]float64, m)
	for i := range out {
		out[i] = 1
	}
	k := 1
	var family []int
	for ; k <= m; k++ {
		family = family[:0]
		for i, mp := range minP {
			if mp <= alpha/float64(k) {
				family = append(family, i)
			}
		}
		if len(family) <= k {
			break
		}
	}
	if len(family) == 0 {
		return out
	}
	ps := make([]float64, len(family))
	for j, i := range family {
		ps[j] = p[i]
	}
	for j, adj := range Holm(ps) {
		out[family[j]] = adj
	}
	return out
}
