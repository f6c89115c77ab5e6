package stats

import (
	"math"
	"sync"
)

// NormalQuantile is the p-quantile of the standard normal distribution,
// by Wichura's algorithm AS 241 (PPND16), accurate to about 1e-16; ±Inf at
// 0 and 1, NaN outside [0, 1].
func NormalQuantile(p float64) float64 {
	switch {
	case math.IsNaN(p) || p < 0 || p > 1:
		return math.NaN()
	case p == 0:
		return math.Inf(-1)
	case p == 1:
		return math.Inf(1)
	}
	q := p - 0.5
	if math.Abs(q) <= 0.425 {
		r := 0.180625 - q*q
		return q * (((((((2509.0809287301226727*r+33430.575583588128105)*r+67265.770927008700853)*r+45921.953931549871457)*r+13731.693765509461125)*r+1971.5909503065514427)*r+133.14166789178437745)*r + 3.387132872796366608) /
			(((((((5226.495278852545925*r+28729.085735721942674)*r+39307.89580009271061)*r+21213.794301586595867)*r+5394.1960214247511077)*r+687.1870074920579083)*r+42.313330701600911252)*r + 1)
	}
	r := p
	if q > 0 {
		r = 1 - p
	}
	r = math.Sqrt(-math.Log(r))
	var x float64
	if r <= 5 {
		r -= 1.6
		x = (((((((7.7454501427834140764e-4*r+0.0227238449892691845833)*r+0.24178072517745061177)*r+1.27045825245236838258)*r+3.64784832476320460504)*r+5.7694972214606914055)*r+4.6303378461565452959)*r + 1.42343711074968357734) /
			(((((((1.05075007164441684324e-9*r+5.475938084995344946e-4)*r+0.0151986665636164571966)*r+0.14810397642748007459)*r+0.68976733498510000455)*r+1.6763848301838038494)*r+2.05319162663775882187)*r + 1)
	} else {
		r -= 5
		x = (((((((2.01033439929228813265e-7*r+2.71155556874348757815e-5)*r+0.0012426609473880784386)*r+0.026532189526576123093)*r+0.29656057182850489123)*r+1.7848265399172913358)*r+5.4637849111641143699)*r + 6.6579046435011037772) /
			(((((((2.04426310338993978564e-15*r+1.4215117583164458887e-7)*r+1.8463183175100546818e-5)*r+7.868691311456132591e-4)*r+0.0148753612908506148525)*r+0.13692988092273580531)*r+0.59983220655588793769)*r + 1)
	}
	if q < 0 {
		return -x
	}
	return x
}

// TCDF is P(T ≤ t) for Student's t distribution with df > 0 degrees of
// freedom, through the regularized incomplete beta function:
// for t ≥ 0, 1 − I_{df/(df+t²)}(df/2, 1/2)/2.
func TCDF(t, df float64) float64 {
	if math.IsNaN(t) || math.IsNaN(df) || df <= 0 {
		return math.NaN()
	}
	if math.IsInf(t, 0) {
		if t > 0 {
			return 1
		}
		return 0
	}
	tail := 0.5 * regIncBeta(df/2, 0.5, df/(df+t*t))
	if t >= 0 {
		return 1 - tail
	}
	return tail
}

// TQuantile is the p-quantile of Student's t distribution with df > 0
// degrees of freedom: closed forms for 1 and 2 degrees of freedom, else the
// root of TCDF found by bisection to full precision; NaN for p outside
// (0, 1) or df ≤ 0.
func TQuantile(p, df float64) float64 {
	if math.IsNaN(p) || math.IsNaN(df) || p <= 0 || p >= 1 || df <= 0 {
		return math.NaN()
	}
	if p == 0.5 {
		return 0
	}
	if p < 0.5 {
		return -TQuantile(1-p, df)
	}
	switch df {
	case 1:
		return math.Tan(math.Pi * (p - 0.5))
	case 2:
		a := 4 * p * (1 - p)
		return 2 * (p - 0.5) * math.Sqrt(2/a)
	}
	// the t quantile lies above the normal one; double the bracket until
	// it holds p
	lo, hi := NormalQuantile(p), NormalQuantile(p)*2+1
	for TCDF(hi, df) < p {
		lo, hi = hi, hi*2
	}
	for range 200 {
		mid := (lo + hi) / 2
		if mid == lo || mid == hi {
			break
		}
		if TCDF(mid, df) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// regIncBeta is the regularized incomplete beta function I_x(a, b), by the
// continued fraction of Numerical Recipes (modified Lentz), with the
// symmetry I_x(a, b) = 1 − I_{1−x}(b, a) where it converges faster.
func regIncBeta(a, b, x float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	front := math.Exp(lab - la - lb + a*math.Log(x) + b*math.Log1p(-x))
	if x < (a+1)/(a+b+2) {
		return front * betaFraction(a, b, x) / a
	}
	return 1 - front*betaFraction(b, a, 1-x)/b
}

func betaFraction(a, b, x float64) float64 {
	const eps = 1e-16
	qab, qap, qam := a+b, a+1, a-1
	c, d := 1.0, 1/nonzero(1-qab*x/qap)
	h := d
	for m := 1; m <= 100000; m++ {
		fm := float64(m)
		// the even and the odd step of the fraction
		c, d = lentz(fm*(b-fm)*x/((qam+2*fm)*(a+2*fm)), c, d)
		h *= d * c
		c, d = lentz(-(a+fm)*(qab+fm)*x/((a+2*fm)*(qap+2*fm)), c, d)
		del := d * c
		h *= del
		if math.Abs(del-1) < eps {
			break
		}
	}
	return h
}

// lentz is one step of the modified Lentz method with the coefficient aa:
// the new c and d (d already inverted).
func lentz(aa, c, d float64) (float64, float64) {
	return nonzero(1 + aa/c), 1 / nonzero(1+aa*d)
}

// nonzero keeps a Lentz term away from zero.
func nonzero(x float64) float64 {
	const tiny = 1e-300
	if math.Abs(x) < tiny {
		return tiny
	}
	return x
}

// criticalT is TQuantile(1 − MeanAlpha/2, df), remembered by df: the t of
// the mean's two-sided interval (96%).
func criticalT(df int) float64 {
	if v, ok := criticals.Load(df); ok {
		return v.(float64)
	}
	v := TQuantile(1-MeanAlpha/2, float64(df))
	criticals.Store(df, v)
	return v
}

var criticals sync.Map
