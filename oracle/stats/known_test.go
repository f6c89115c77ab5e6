package stats

import (
	"math"
	"testing"
)

// The known values below are computed independently of this package by
// testdata/reference.py: exact rational arithmetic with Python's standard
// library (fractions, math.comb, statistics.NormalDist) and, for Student's
// t, mpmath at 30 significant digits. Where a textbook value exists it is
// named too.

// near reports whether got is within tol of want, relatively for large
// values.
func near(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol*max(1, math.Abs(want))
}

func TestNormalQuantile(t *testing.T) {
	for _, c := range []struct{ p, want float64 }{
		{0.5, 0.0},
		{0.8, 0.8416212335729144},
		{0.975, 1.9599639845400536}, // the 1.96 of every 95% interval
		{0.995, 2.5758293035489},
		{1e-10, -6.361340902404056},
		{0.999999, 4.753424308817089},
	} {
		if got := NormalQuantile(c.p); !near(got, c.want, 1e-14) {
			t.Errorf("NormalQuantile(%v) = %.17g, want %.17g", c.p, got, c.want)
		}
	}
	if !math.IsNaN(NormalQuantile(1.5)) || !math.IsInf(NormalQuantile(0), -1) || !math.IsInf(NormalQuantile(1), 1) {
		t.Error("NormalQuantile outside (0, 1) is not NaN or ±Inf")
	}
}

func TestTQuantile(t *testing.T) {
	for _, c := range []struct{ p, df, want float64 }{
		// t tables: 12.706, 4.303, 3.182, 2.365, 2.069, 1.984, 1.962
		{0.975, 1, 12.706204736174705},
		{0.975, 2, 4.3026527297494639},
		{0.975, 3, 3.1824463052837096},
		{0.975, 7, 2.3646242515927853},
		{0.975, 23, 2.0686576104190487},
		{0.975, 100, 1.9839715185235523},
		{0.975, 1000, 1.9623390808264085},
		{0.8, 1, 1.3763819204711735},
		{0.8, 7, 0.89602964431376495},
		{0.8, 23, 0.85752955368803516},
		{0.995, 5, 4.0321429835552281},
		{0.6, 10, 0.26018482949208024},
		{0.999, 30, 3.3851848668293051},
	} {
		if got := TQuantile(c.p, c.df); !near(got, c.want, 1e-12) {
			t.Errorf("TQuantile(%v, %v) = %.17g, want %.17g", c.p, c.df, got, c.want)
		}
		if got := TQuantile(1-c.p, c.df); !near(got, -c.want, 1e-12) {
			t.Errorf("TQuantile(%v, %v) = %.17g, want %.17g", 1-c.p, c.df, got, -c.want)
		}
	}
	for _, bad := range [][2]float64{{0, 3}, {1, 3}, {0.5, 0}, {math.NaN(), 2}} {
		if got := TQuantile(bad[0], bad[1]); !math.IsNaN(got) {
			t.Errorf("TQuantile(%v, %v) = %v, want NaN", bad[0], bad[1], got)
		}
	}
}

func TestTCDF(t *testing.T) {
	for _, c := range []struct{ t, df, want float64 }{
		{-2.5, 4, 0.033383272405994073},
		{0.7, 1, 0.69440011221421478},
		{1.5, 12, 0.9202712482433965},
		{3.0, 200, 0.99847847644304705},
		{0, 9, 0.5},
	} {
		if got := TCDF(c.t, c.df); !near(got, c.want, 1e-13) {
			t.Errorf("TCDF(%v, %v) = %.17g, want %.17g", c.t, c.df, got, c.want)
		}
	}
}

func TestPowerMultiplier(t *testing.T) {
	for _, c := range []struct {
		tasks int
		want  float64
	}{
		{2, 16.3340088699},
		{3, 5.65348926641},
		{8, 3.2697621494},
		{24, 2.92559607688},
		{100, 2.82912978426},
	} {
		if got := powerMultiplierAt(c.tasks, 0.975); !near(got, c.want, 1e-7) {
			t.Errorf("powerMultiplier(%d) = %.12g, want %.12g", c.tasks, got, c.want)
		}
	}
	// at the gate's level for the mean (3% two-sided)
	for _, c := range []struct {
		tasks int
		want  float64
	}{{2, 27.2054367552}, {3, 7.30986563018}, {8, 3.64938356013}, {24, 3.17668671486}, {100, 3.04808919178}, {1, 3.0117116111574744}} {
		if got := powerMultiplier(c.tasks); !near(got, c.want, 1e-7) {
			t.Errorf("powerMultiplier(%d) = %.12g, want %.12g", c.tasks, got, c.want)
		}
	}
	z := 1.9599639845400536 + 0.8416212335729144
	if got := powerMultiplierAt(1, 0.975); !near(got, z, 1e-14) {
		t.Errorf("powerMultiplierAt(1, 0.975) = %v, want z.975 + z.80 = %v", got, z)
	}
	// with many tasks the t test becomes the z test: the multiplier falls
	// towards z.975 + z.80, and never below it
	prev := math.Inf(1)
	for _, tasks := range []int{2, 5, 30, 300, 3000, 30000, 100000} {
		m := powerMultiplierAt(tasks, 0.975)
		if m >= prev || m <= z {
			t.Errorf("powerMultiplier(%d) = %v after %v; want it falling towards %v", tasks, m, prev, z)
		}
		prev = m
	}
	if prev-z > 1e-3 {
		t.Errorf("powerMultiplier(100000) = %v, want within 0.001 of %v", prev, z)
	}
}

func TestWilson(t *testing.T) {
	for _, c := range []struct {
		passes, n int
		low, high float64
	}{
		{0, 10, 0, 0.27753279986288915},
		{10, 10, 0.7224672001371109, 1.0},
		{7, 10, 0.39677814746114537, 0.892208732593699},
		{1, 3, 0.06149194472039629, 0.7923403991979523},
		{50, 100, 0.4038315303659957, 0.5961684696340043},
		{999, 1000, 0.9943574414020421, 0.9998234536293739},
		{3, 7, 0.1582198552514697, 0.7495416354723426},
		{0, 1, 0.0, 0.7934506856227626},
	} {
		got := Wilson(c.passes, c.n)
		if !near(got.Low, c.low, 1e-14) || !near(got.High, c.high, 1e-14) {
			t.Errorf("Wilson(%d, %d) = %v, want {%v %v}", c.passes, c.n, got, c.low, c.high)
		}
	}
}

func TestFisher(t *testing.T) {
	for _, c := range []struct {
		t                 Table
		twoSided, greater float64
	}{
		// Fisher's lady tasting tea, 3 of 4 against 1 of 4: 0.4857, one-sided 0.2429
		{Table{3, 4, 1, 4}, 0.4857142857142857, 0.24285714285714285},
		{Table{10, 10, 7, 10}, 0.21052631578947367, 0.10526315789473684},
		{Table{3, 10, 9, 10}, 0.019766611097880447, 0.9996427720885925},
		{Table{0, 10, 10, 10}, 1.082508822446903e-05, 1.0},
		{Table{1, 5, 4, 5}, 0.20634920634920634, 0.996031746031746},
		{Table{5, 10, 5, 10}, 1.0, 0.6718591006516703},
		{Table{4, 10, 0, 10}, 0.08668730650154799, 0.043343653250773995},
		{Table{30, 40, 20, 45}, 0.007642524824437286, 0.003914568593007971},
		{Table{0, 3, 0, 7}, 1.0, 1.0},
		{Table{120, 200, 95, 210}, 0.0030353378538576126, 0.0018806651096334463},
	} {
		if got := FisherTwoSided(c.t); !near(got, c.twoSided, 1e-10) {
			t.Errorf("FisherTwoSided(%v) = %.17g, want %.17g", c.t, got, c.twoSided)
		}
		if got := FisherGreater(c.t); !near(got, c.greater, 1e-10) {
			t.Errorf("FisherGreater(%v) = %.17g, want %.17g", c.t, got, c.greater)
		}
	}
	for _, bad := range []Table{{1, 0, 1, 2}, {-1, 3, 1, 3}, {0, 0, 1, 3}} {
		if got := FisherTwoSided(bad); got != 1 {
			t.Errorf("FisherTwoSided(%v) = %v, want 1", bad, got)
		}
	}
}

func TestHolm(t *testing.T) {
	// by hand: sorted .005 ×4 = .02, .01 ×3 = .03, .03 ×2 = .06, .04 ×1 = .04 → .06 (monotone)
	got := Holm([]float64{0.01, 0.04, 0.03, 0.005})
	want := []float64{0.03, 0.06, 0.06, 0.02}
	for i := range want {
		if !near(got[i], want[i], 1e-15) {
			t.Fatalf("Holm = %v, want %v", got, want)
		}
	}
	if got := Holm([]float64{0.5, 0.7}); got[0] != 1 || got[1] != 1 {
		t.Errorf("Holm caps at 1: got %v", got)
	}
	if got := Holm(nil); len(got) != 0 {
		t.Errorf("Holm(nil) = %v", got)
	}
}

func TestPassK(t *testing.T) {
	for _, c := range []struct {
		n, c, k int
		hat, at float64
	}{
		{10, 7, 1, 0.7, 0.7},
		{10, 7, 3, 0.2916666666666667, 0.9916666666666667}, // 35/120, 1 − 1/120
		{10, 10, 5, 1.0, 1.0},
		{10, 0, 2, 0.0, 0.0},
		{5, 4, 5, 0.0, 1.0},
		{3000, 2000, 50, 1.2750580600229598e-09, 1.0},
		{5000, 4990, 1000, 0.10713251803023578, 1.0},
		{4000, 3, 2000, 0.0, 0.8750937734433608},
		{20, 19, 10, 0.5, 1.0},
	} {
		hat, err := PassHatK(c.n, c.c, c.k)
		if err != nil {
			t.Fatal(err)
		}
		at, err := PassAtK(c.n, c.c, c.k)
		if err != nil {
			t.Fatal(err)
		}
		// exact rationals rounded once: equal to the last bit
		if hat != c.hat || at != c.at {
			t.Errorf("pass^%d, pass@%d of %d/%d = %.17g, %.17g; want %.17g, %.17g", c.k, c.k, c.c, c.n, hat, at, c.hat, c.at)
		}
	}
	for _, bad := range [][3]int{{0, 0, 1}, {10, 11, 1}, {10, 5, 0}, {10, 5, 11}, {MaxRuns + 1, 1, 1}, {10, -1, 1}} {
		if _, err := PassHatK(bad[0], bad[1], bad[2]); err == nil {
			t.Errorf("PassHatK%v: no error", bad)
		}
		if _, err := PassAtK(bad[0], bad[1], bad[2]); err == nil {
			t.Errorf("PassAtK%v: no error", bad)
		}
	}
}

// The float fast path of pass^k gives the same bits as exact rationals.
func TestPassKFastPath(t *testing.T) {
	for n := 1; n <= 40; n++ {
		for c := 0; c <= n; c++ {
			for _, k := range []int{1, 2, 3, 5, 8, 13, 21, 34, n} {
				if k > n {
					continue
				}
				hat, _ := PassHatK(n, c, k)
				at, _ := PassAtK(n, c, k)
				wantHat := ratio(choose(c, k), choose(n, k))
				num, den := choose(n-c, k), choose(n, k)
				wantAt := ratio(num.Sub(den, num), den)
				if hat != wantHat || at != wantAt {
					t.Fatalf("n %d c %d k %d: %v %v, exact %v %v", n, c, k, hat, at, wantHat, wantAt)
				}
			}
		}
	}
}
