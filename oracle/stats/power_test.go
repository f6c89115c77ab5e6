package stats

import (
	"math"
	"strings"
	"testing"
)

func TestDetectableDrop(t *testing.T) {
	// the worst case in closed form: m·√(T·(1/4)(1/N + 1/N))/T, m the
	// noncentrality of testdata/reference.py at the mean's level, 3%
	// two-sided
	worst := func(m float64, tasks, runs int) float64 {
		return m * math.Sqrt(float64(tasks)*0.5/float64(runs)) / float64(tasks)
	}
	for _, c := range []struct {
		d        Design
		want     float64
		sentence string
	}{
		{Design{Tasks: 8, Runs: 10}, worst(3.64938356013, 8, 10), "8 tasks × 10 runs: a uniform drop of 29 points is detected 80% of the time"},
		{Design{Tasks: 24, Runs: 10}, worst(3.17668671486, 24, 10), "24 tasks × 10 runs: a uniform drop of 15 points is detected 80% of the time"},
		{Design{Tasks: 100, Runs: 20}, worst(3.04808919178, 100, 20), "100 tasks × 20 runs: a uniform drop of 5 points is detected 80% of the time"},
		// one task: its exact test, against a baseline of 5 of 10, rejects
		// only 0 of 10 (p = C(10,5)/C(20,5) = 0.016): P(0 of 10) = 0.8 at
		// a rate of 1 − 0.8^0.1 = 0.0221, a drop of 0.478
		{Design{Tasks: 1, Runs: 10}, 0.478, "1 task × 10 runs: a uniform drop of 48 points is detected 80% of the time"},
		{Design{Tasks: 24, Runs: 10, Margin: 0.05}, 0.05 + worst(3.17668671486, 24, 10), "24 tasks × 10 runs: a uniform drop of 20 points is detected 80% of the time"},
		{Design{Tasks: 2, Runs: 10}, -1, "2 tasks × 10 runs: the check cannot promise to detect any uniform drop 80% of the time; add tasks or runs"},
		{Design{Tasks: 3, Runs: 1}, -1, "3 tasks × 1 run: the check cannot promise to detect any uniform drop 80% of the time; add tasks or runs"},
	} {
		f, err := DetectableDrop(c.d)
		if err != nil {
			t.Fatal(err)
		}
		if c.want < 0 {
			if f.Detectable {
				t.Errorf("%+v: floor %v, want none", c.d, f.Drop)
			}
		} else if !f.Detectable || !near(f.Drop, c.want, 1e-7) {
			t.Errorf("%+v: floor %v (%v), want %v", c.d, f.Drop, f.Detectable, c.want)
		}
		if got := f.Sentence(); got != c.sentence {
			t.Errorf("%+v: %q\nwant %q", c.d, got, c.sentence)
		}
	}
}

func TestDetectableDropRates(t *testing.T) {
	worst, _ := DetectableDrop(Design{Tasks: 24, Runs: 10})
	rates := make([]float64, 24)
	for i := range rates {
		rates[i] = 0.5
	}
	half, _ := DetectableDrop(Design{Tasks: 24, Runs: 10, Rates: rates})
	// at 0.5 the pooled rate is p − δ/2, a little under 0.5: the floor is
	// the worst case's, to the step of 0.001
	if !half.Detectable || math.Abs(half.Drop-worst.Drop) > 0.002 {
		t.Errorf("rates 0.5: floor %v, worst case %v", half.Drop, worst.Drop)
	}
	for i := range rates {
		rates[i] = 0.95
	}
	high, _ := DetectableDrop(Design{Tasks: 24, Runs: 10, Rates: rates})
	if !high.Detectable || high.Drop >= worst.Drop {
		t.Errorf("reliable tasks (0.95) are easier to watch: floor %v, worst case %v", high.Drop, worst.Drop)
	}
	// a task at 0 cannot drop: only the others carry a drop of the mean
	for i := range rates {
		rates[i] = 0
	}
	none, _ := DetectableDrop(Design{Tasks: 24, Runs: 10, Rates: rates})
	if none.Detectable {
		t.Errorf("tasks that never pass: floor %v", none.Drop)
	}
	// the floor is met by its own condition and missed a step below
	rates = []float64{0.9, 0.8, 0.3, 1, 0.6, 0.7, 0.5, 0.95}
	f, _ := DetectableDrop(Design{Tasks: 8, Runs: 15, Rates: rates})
	if !f.Detectable || f.Drop <= 0 || f.Drop > 0.5 {
		t.Fatalf("floor %+v", f)
	}
}

func TestRunsFor(t *testing.T) {
	// worst case in closed form: N ≥ (1/2)(m/(δ√T))²
	for _, c := range []struct {
		tasks int
		m     float64
		drop  float64
	}{{8, 3.64938356013, 0.1}, {24, 3.17668671486, 0.2}, {24, 3.17668671486, 0.05}, {100, 3.04808919178, 0.1}} {
		n, err := RunsFor(Design{Tasks: c.tasks}, c.drop)
		if err != nil {
			t.Fatal(err)
		}
		want := int(math.Ceil(0.5 * math.Pow(c.m/(c.drop*math.Sqrt(float64(c.tasks))), 2)))
		if n != want {
			t.Errorf("%d tasks, drop %v: %d runs, want %d", c.tasks, c.drop, n, want)
		}
		at, _ := DetectableDrop(Design{Tasks: c.tasks, Runs: n})
		below, _ := DetectableDrop(Design{Tasks: c.tasks, Runs: n - 1})
		if at.Drop > c.drop || below.Drop <= c.drop {
			t.Errorf("%d tasks × %d runs: floor %v, with one run fewer %v; target %v", c.tasks, n, at.Drop, below.Drop, c.drop)
		}
	}
	for _, c := range []struct {
		d       Design
		drop    float64
		wantErr string
	}{
		{Design{Tasks: 2}, 0.01, "even 100000 runs of 2 tasks cannot detect a drop of 1 points; add tasks"},
		{Design{Tasks: 8, Margin: 0.1}, 0.1, "a drop of 0.1 cannot be detected with a margin of 0.1"},
		{Design{Tasks: 8}, 1.5, "a drop of 1.5 cannot be detected"},
		{Design{Tasks: 8}, math.NaN(), "a drop of NaN cannot be detected"},
		{Design{Tasks: 0}, 0.1, "0 tasks; a check has at least 1"},
		{Design{Tasks: 2, Rates: []float64{0.5}}, 0.1, "1 pass rates for 2 tasks"},
		{Design{Tasks: 1, Rates: []float64{1.5}}, 0.1, "pass rate 1.5 is not between 0 and 1"},
		{Design{Tasks: 1, Margin: -1}, 0.1, "margin -1 is out of range"},
	} {
		_, err := RunsFor(c.d, c.drop)
		if err == nil || !strings.Contains(err.Error(), c.wantErr) {
			t.Errorf("RunsFor(%+v, %v) = %v, want %q", c.d, c.drop, err, c.wantErr)
		}
	}
	if _, err := DetectableDrop(Design{Tasks: 3, Runs: 0}); err == nil {
		t.Error("0 runs: no error")
	}
}
