package stats

import "math"

// Interval is a confidence interval, Low ≤ High.
type Interval struct {
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

// z975 is the 0.975 quantile of the standard normal distribution: the z of
// a two-sided 95% interval.
var z975 = NormalQuantile(0.975)

// zMean is the z of the mean's two-sided interval at level 1 − MeanAlpha.
var zMean = NormalQuantile(1 - MeanAlpha/2)

// Wilson is the 95% Wilson score interval of a proportion of passes out of
// n trials (0 ≤ passes ≤ n, n ≥ 1):
//
//	(p + z²/2n ± z·√(p(1−p)/n + z²/4n²)) / (1 + z²/n)
//
// with p = passes/n and z the normal 0.975 quantile. Unlike the Wald
// interval it stays inside [0, 1] and does not collapse at 0 or n passes.
func Wilson(passes, n int) Interval { return wilson(passes, n, z975) }

func wilson(passes, n int, z float64) Interval {
	if n <= 0 {
		return Interval{0, 1}
	}
	nf := float64(n)
	p := float64(passes) / nf
	z2 := z * z
	centre := p + z2/(2*nf)
	half := z * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf))
	den := 1 + z2/nf
	low, high := (centre-half)/den, (centre+half)/den
	// exact at the ends, where rounding could leave a hair outside
	if passes == 0 {
		low = 0
	}
	if passes == n {
		high = 1
	}
	return Interval{max(0, low), min(1, high)}
}
