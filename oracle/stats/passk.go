package stats

import (
	"fmt"
	"math/big"
	"math/bits"
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
	return chooseRatio(c, n, k, false), nil
}

// PassAtK is pass@k: the probability that at least one of k runs drawn
// without replacement from n runs with c passes passes,
// 1 − C(n−c, k)/C(n, k). Exact as PassHatK is.
func PassAtK(n, c, k int) (float64, error) {
	if err := validPassK(n, c, k); err != nil {
		return 0, err
	}
	return chooseRatio(n-c, n, k, true), nil
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

// exactFloat is the largest integer up to which every integer is a
// float64: below it a quotient of two integers is rounded once.
const exactFloat = 1 << 53

// choose is C(n, k), 0 when k > n.
func choose(n, k int) *big.Int {
	if k > n {
		return new(big.Int)
	}
	return new(big.Int).Binomial(int64(n), int64(k))
}

// smallChoose is C(n, k) when it is at most exactFloat (0 when k > n),
// built as C(n, i+1) = C(n, i)·(n−i)/(i+1), and false when it is larger.
func smallChoose(n, k int) (uint64, bool) {
	if k > n {
		return 0, true
	}
	k = min(k, n-k)
	c := uint64(1)
	for i := range k {
		hi, lo := bits.Mul64(c, uint64(n-i))
		if hi != 0 {
			return 0, false
		}
		c = lo / uint64(i+1) // exact: a product of i+1 consecutive integers divides by (i+1)!
		if c > exactFloat {
			return 0, false
		}
	}
	return c, true
}

// ratio is num/den rounded once to the nearest float64: a float division
// when both are exact as floats, else exact rationals.
func ratio(num, den *big.Int) float64 {
	f, _ := new(big.Rat).SetFrac(num, den).Float64()
	return f
}

// chooseRatio is C(a, k)/C(n, k) rounded once, and with complement the
// same for 1 − C(a, k)/C(n, k).
func chooseRatio(a, n, k int, complement bool) float64 {
	num, ok1 := smallChoose(a, k)
	den, ok2 := smallChoose(n, k)
	if ok1 && ok2 {
		if complement {
			num = den - num
		}
		return float64(num) / float64(den)
	}
	bn, bd := choose(a, k), choose(n, k)
	if complement {
		bn.Sub(bd, bn)
	}
	return ratio(bn, bd)
}
