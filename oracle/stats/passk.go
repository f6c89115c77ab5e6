package stats

import (
	"fmt"
	"math/big"
)

// PassHatK is pass^k: the probability that k runs drawn without replacement
// from n runs with c passes all pass, C(c, k)/C(n, k). It measures
// reliability: pass^1 is the pass rate, and pass^k falls as k grows unless
// every run passes. Computed exactly in integers and rounded once to a
// float64, for n up to MaxRuns.
func PassHatK(n, c, k int) (float64, error) {
	if err := validPassK(n, c, k); err != nil {
		return 0, err
	}
	return ratio(choose(c, k), choose(n, k)), nil
}

// PassAtK is pass@k: the probability that at least one of k runs drawn
// without replacement from n runs with c passes passes,
// 1 − C(n−c, k)/C(n, k). Exact as PassHatK is.
func PassAtK(n, c, k int) (float64, error) {
	if err := validPassK(n, c, k); err != nil {
		return 0, err
	}
	num, den := choose(n-c, k), choose(n, k)
	return ratio(num.Sub(den, num), den), nil
}

func validPassK(n, c, k int) error {
	switch {
	case n < 1 || n > MaxRuns:
		return fmt.Errorf("pass^k: %d runs; it takes 1 to %d", n, MaxRuns)
	case c < 0 || c > n:
		return fmt.Errorf("pass^k: %d passes out of %d runs", c, n)
	case k < 1 || k > n:
		return fmt.Errorf("pass^k: k is %d; it must be from 1 to the %d runs", k, n)
	}
	return nil
}

// choose is C(n, k), 0 when k > n.
func choose(n, k int) *big.Int {
	if k > n {
		return new(big.Int)
	}
	return new(big.Int).Binomial(int64(n), int64(k))
}

// ratio is num/den rounded once to the nearest float64.
func ratio(num, den *big.Int) float64 {
	f, _ := new(big.Rat).SetFrac(num, den).Float64()
	return f
}
