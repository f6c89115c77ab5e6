package stats

import (
	"cmp"
	"math"
	"slices"
)

// Table is a 2×2 table of passes and runs on two sides.
type Table struct {
	APasses, ARuns int
	BPasses, BRuns int
}

// valid reports whether the counts make a table.
func (t Table) valid() bool {
	return t.ARuns >= 0 && t.BRuns >= 0 && t.APasses >= 0 && t.BPasses >= 0 && t.APasses <= t.ARuns && t.BPasses <= t.BRuns
}

// hypergeometric holds the law of the A side's passes given the margins:
// with K passes over both sides, P(X = x) = C(ARuns, x)·C(BRuns, K−x)/C(N, K).
type hypergeometric struct {
	a, b, k int // ARuns, BRuns, passes over both
	lo, hi  int // the support of X
	logNorm float64
}

func newHypergeometric(t Table) hypergeometric {
	k := t.APasses + t.BPasses
	h := hypergeometric{a: t.ARuns, b: t.BRuns, k: k, lo: max(0, k-t.BRuns), hi: min(k, t.ARuns)}
	h.logNorm = logChoose(t.ARuns+t.BRuns, k)
	return h
}

func (h hypergeometric) logP(x int) float64 {
	return logChoose(h.a, x) + logChoose(h.b, h.k-x) - h.logNorm
}

// logChoose is ln C(n, k).
func logChoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// FisherTwoSided is the two-sided p-value of Fisher's exact test of the
// table: the probability, given the margins, of every table no more likely
// than the observed one (a relative tolerance of 1e-7 counts ties as R's
// fisher.test does). It is 1 when either side has no runs, or for an
// invalid table.
func FisherTwoSided(t Table) float64 {
	if !t.valid() || t.ARuns == 0 || t.BRuns == 0 {
		return 1
	}
	h := newHypergeometric(t)
	obs := h.logP(t.APasses)
	cut := obs + math.Log1p(1e-7)
	p := 0.0
	for x := h.lo; x <= h.hi; x++ {
		if lp := h.logP(x); lp <= cut {
			p += math.Exp(lp)
		}
	}
	return min(1, p)
}

// FisherGreater is the one-sided p-value of Fisher's exact test that the A
// side's share of passes is greater than the B side's: P(X ≥ APasses) given
// the margins. It is 1 when either side has no runs, or for an invalid
// table.
func FisherGreater(t Table) float64 {
	if !t.valid() || t.ARuns == 0 || t.BRuns == 0 {
		return 1
	}
	h := newHypergeometric(t)
	if t.APasses <= h.lo {
		return 1 // every table the margins allow
	}
	p := 0.0
	for x := t.APasses; x <= h.hi; x++ {
		p += math.Exp(h.logP(x))
	}
	return min(1, p)
}

// Holm adjusts p-values for the number of tests by Holm's step-down method:
// with the p-values in increasing order p₍₁₎ ≤ … ≤ p₍ₘ₎, the adjusted p₍ᵢ₎ is
// max over j ≤ i of min(1, (m−j+1)·p₍ⱼ₎). The result is in the order given;
// ties keep it.
func Holm(p []float64) []float64 {
	m := len(p)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int { return cmp.Compare(p[i], p[j]) })
	out := make([]float64, m)
	running := 0.0
	for rank, i := range order {
		running = max(running, min(1, float64(m-rank)*p[i]))
		out[i] = running
	}
	return out
}
