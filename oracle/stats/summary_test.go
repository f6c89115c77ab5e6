package stats

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// summaryCases are decisions of each kind, in the order of TestSummary's
// golden texts.
func summaryCases() []*Decision {
	var out []*Decision
	add := func(pairs []Pair, opts Options) {
		d, err := Decide(pairs, opts)
		if err != nil {
			panic(err)
		}
		out = append(out, d)
	}
	// a regression with a forbidden effect and a termination rise
	pairs := pairsOf(10, [2]int{9, 3}, [2]int{8, 6}, [2]int{10, 9}, [2]int{7, 5}, [2]int{9, 7}, [2]int{6, 4}, [2]int{10, 10}, [2]int{8, 7})
	pairs[6].Candidate = withViolation(8, 10, 2, "another deal changed")
	pairs[1].Candidate = ending(6, 10, 7, Timeout)
	add(pairs, Options{})
	// nothing moved, with a margin
	add(pairsOf(10, repeat(24, [2]int{8, 8})...), Options{Margin: 0.05})
	// an improvement
	add(pairsOf(10, [2]int{3, 9}, [2]int{2, 8}, [2]int{5, 10}, [2]int{2, 7}, [2]int{4, 9}, [2]int{1, 6}), Options{})
	// too small to tell anything, with infrastructure errors and a task
	// name that needs quoting
	p := pairsOf(3, [2]int{3, 3}, [2]int{2, 1})
	p[1].Candidate.Runs, p[1].Candidate.Verdicts.Error = 4, 1
	p = append(p, Pair{"T\x1b[31m", &Distribution{Runs: 3, Verdicts: Verdicts{Error: 3}}, counted(1, 3)})
	add(p, Options{})
	// three new forbidden effects: the line names two
	pairs = pairsOf(10, repeat(3, [2]int{10, 10})...)
	for i, label := range []string{"a\nb", "c", "d"} {
		pairs[i].Candidate = withViolation(10-1, 10, 1, label)
		pairs[i].Candidate.Verdicts = Verdicts{Pass: 9, Fail: 1}
		pairs[i].Candidate.Checks[0].Passed = 9
		pairs[i].Candidate.Rewards = map[string]int{"1.00": 9, "0.00": 1}
	}
	add(pairs, Options{K: []int{1}})
	// one task of eight collapsed, the mean within noise: the task leads
	pairs = pairsOf(10, append([][2]int{{8, 8}, {9, 9}, {10, 2}}, repeat(5, [2]int{8, 7})...)...)
	add(pairs, Options{K: []int{1}})
	return out
}

func TestSummary(t *testing.T) {
	want := []string{
		"regression: T007 had the forbidden effect \"another deal changed\" in 0 of 10 → 2 of 10 runs; pass rate 0.84 → 0.61 (−23 points, 97% CI −38 to −7) over 8 tasks × 10 runs; the group ended with timeout in 0 of 80 → 7 of 80 runs; T002 ended with timeout in 0 of 10 → 7 of 10 runs\n  T007 had the forbidden effect \"another deal changed\" in 0 of 10 → 2 of 10 runs: a regression on its own (no run may confirm a forbidden effect)\n  the group ended with timeout in 0 of 80 → 7 of 80 runs: more than the baseline tolerates over the tasks (one-sided exact p 0.007)\n  T002 ended with timeout in 0 of 10 → 7 of 10 runs: more than the baseline tolerates (one-sided exact p 0.012, Holm-adjusted)\n  97% intervals: over the tasks −38 to −7 points (t, 7 degrees of freedom); from the runs alone −34 to −8 points\n  T001 9/10 → 3/10 (−60 points, moved within noise; Wilson 0.60–0.98 → 0.11–0.60; one-sided exact p 0.010, adjusted 0.030)\n  T004 7/10 → 5/10 (−20 points, moved within noise; Wilson 0.40–0.89 → 0.24–0.76; one-sided exact p 0.325, adjusted 0.650)\n  T006 6/10 → 4/10 (−20 points, moved within noise; Wilson 0.31–0.83 → 0.17–0.69; one-sided exact p 0.328, adjusted 0.650)\n  T002 8/10 → 6/10 (−20 points, moved within noise; Wilson 0.49–0.94 → 0.31–0.83; one-sided exact p 0.314, adjusted 1.000)\n  T005 9/10 → 7/10 (−20 points, moved within noise; Wilson 0.60–0.98 → 0.40–0.89; one-sided exact p 0.291, adjusted 1.000)\n  and 3 more tasks moved\n  pass^3 0.60 → 0.26, pass@3 0.99 → 0.93 (over 8 tasks)\n  pass^5 0.44 → 0.11, pass@5 1.00 → 0.99 (over 8 tasks)\n  8 tasks × 10 runs: a uniform drop of 25 points is detected 80% of the time\n",
		"no change the check could detect: pass rate 0.80 → 0.80 (0 points, 97% CI −8 to +8) over 24 tasks × 10 runs; with the 5-point margin, a uniform drop of 19 points is detected 80% of the time\n  margin: changes within 5 points of the baseline do not count\n  97% intervals: over the tasks 0 to 0 points (t, 23 degrees of freedom); from the runs alone −8 to +8 points\n  pass^3 0.47 → 0.47, pass@3 1.00 → 1.00 (over 24 tasks)\n  pass^5 0.22 → 0.22, pass@5 1.00 → 1.00 (over 24 tasks)\n  24 tasks × 10 runs: a uniform drop of 19 points is detected 80% of the time\n",
		"improvement: pass rate 0.28 → 0.82 (+53 points, 97% CI +34 to +64) over 6 tasks × 10 runs\n  97% intervals: over the tasks +47 to +60 points (t, 5 degrees of freedom); from the runs alone +34 to +64 points\n  T001 3/10 → 9/10 (+60 points, moved within noise; Wilson 0.11–0.60 → 0.60–0.98; one-sided exact p 0.010, adjusted 0.049)\n  T002 2/10 → 8/10 (+60 points, moved within noise; Wilson 0.06–0.51 → 0.49–0.94; one-sided exact p 0.012, adjusted 0.049)\n  T004 2/10 → 7/10 (+50 points, moved within noise; Wilson 0.06–0.51 → 0.40–0.89; one-sided exact p 0.035, adjusted 0.086)\n  T005 4/10 → 9/10 (+50 points, moved within noise; Wilson 0.17–0.69 → 0.60–0.98; one-sided exact p 0.029, adjusted 0.086)\n  T006 1/10 → 6/10 (+50 points, moved within noise; Wilson 0.02–0.40 → 0.31–0.83; one-sided exact p 0.029, adjusted 0.086)\n  and 1 more task moved\n  pass^3 0.02 → 0.55, pass@3 0.64 → 0.99 (over 6 tasks)\n  pass^5 0.00 → 0.39, pass@5 0.82 → 1.00 (over 6 tasks)\n  6 tasks × 10 runs: a uniform drop of 26 points is detected 80% of the time\n",
		"no change the check could detect: pass rate 0.83 → 0.67 (−17 points, 97% CI −100 to +100) over 2 tasks × 3 runs; the check cannot promise to detect any uniform drop 80% of the time; add tasks or runs\n  97% intervals: over the tasks −100 to +100 points (t, 1 degree of freedom); from the runs alone −53 to +29 points\n  T002 2/3 → 1/3 (−33 points, moved within noise; Wilson 0.21–0.94 → 0.06–0.79; one-sided exact p 0.500, adjusted 1.000)\n  pass^3 0.50 → 0.50, pass@3 1.00 → 1.00 (over 2 tasks)\n  2 tasks × 3 runs: the check cannot promise to detect any uniform drop 80% of the time; add tasks or runs\n  infrastructure errors, left out of the pass rates: 1 of 10 candidate runs, 3 of 9 baseline runs\n  not compared, no graded run on a side: \"T\\x1b[31m\"\n",
		"regression: T001 had the forbidden effect \"a\\nb\" in 0 of 10 → 1 of 10 runs; T002 had the forbidden effect \"c\" in 0 of 10 → 1 of 10 runs; 1 more severe finding; pass rate 1.00 → 0.90 (−10 points, 97% CI −30 to +9) over 3 tasks × 10 runs\n  T001 had the forbidden effect \"a\\nb\" in 0 of 10 → 1 of 10 runs: a regression on its own (no run may confirm a forbidden effect)\n  T002 had the forbidden effect \"c\" in 0 of 10 → 1 of 10 runs: a regression on its own (no run may confirm a forbidden effect)\n  T003 had the forbidden effect \"d\" in 0 of 10 → 1 of 10 runs: a regression on its own (no run may confirm a forbidden effect)\n  97% intervals: over the tasks −10 to −10 points (t, 2 degrees of freedom); from the runs alone −30 to +9 points\n  T001 10/10 → 9/10 (−10 points, moved within noise; Wilson 0.72–1.00 → 0.60–0.98; one-sided exact p 0.500, adjusted 1.000)\n  T002 10/10 → 9/10 (−10 points, moved within noise; Wilson 0.72–1.00 → 0.60–0.98; one-sided exact p 0.500, adjusted 1.000)\n  T003 10/10 → 9/10 (−10 points, moved within noise; Wilson 0.72–1.00 → 0.60–0.98; one-sided exact p 0.500, adjusted 1.000)\n  3 tasks × 10 runs: a uniform drop of 95 points is detected 80% of the time\n",
		"regression: T003 dropped 10/10 → 2/10; pass rate 0.84 → 0.68 (−16 points, 97% CI −41 to +9) over 8 tasks × 10 runs\n  T003 dropped 10/10 → 2/10 (−80 points): its own one-sided exact test p <0.001, <0.001 adjusted over the tasks (at most 0.02): a regression on its own\n  97% intervals: over the tasks −41 to +9 points (t, 7 degrees of freedom); from the runs alone −28 to −2 points\n  T003 10/10 → 2/10 (−80 points, dropped; Wilson 0.72–1.00 → 0.06–0.51; one-sided exact p <0.001, adjusted <0.001)\n  T004 8/10 → 7/10 (−10 points, moved within noise; Wilson 0.49–0.94 → 0.40–0.89; one-sided exact p 0.500, adjusted 1.000)\n  T005 8/10 → 7/10 (−10 points, moved within noise; Wilson 0.49–0.94 → 0.40–0.89; one-sided exact p 0.500, adjusted 1.000)\n  T006 8/10 → 7/10 (−10 points, moved within noise; Wilson 0.49–0.94 → 0.40–0.89; one-sided exact p 0.500, adjusted 1.000)\n  T007 8/10 → 7/10 (−10 points, moved within noise; Wilson 0.49–0.94 → 0.40–0.89; one-sided exact p 0.500, adjusted 1.000)\n  and 1 more task moved\n  8 tasks × 10 runs: a uniform drop of 26 points is detected 80% of the time\n",
	}
	for i, d := range summaryCases() {
		s := d.Summary()
		if diff := cmp.Diff(want[i], s.String()); diff != "" {
			t.Errorf("case %d (-want +got):\n%s", i, diff)
		}
		if strings.Contains(s.Line, "\n") || strings.Contains(s.Line, "\x1b") {
			t.Errorf("case %d: the line is not one line of plain text: %q", i, s.Line)
		}
		for _, l := range s.Details {
			if strings.ContainsAny(l, "\n\x1b") {
				t.Errorf("case %d: a detail is not one line of plain text: %q", i, l)
			}
		}
	}
}

func TestSignedPoints(t *testing.T) {
	for _, c := range []struct {
		x    float64
		want string
	}{{0, "0"}, {1e-17, "0"}, {-0.19, "−19"}, {0.19, "+19"}, {-0.004, "−0.4"}, {0.0049, "+0.5"}, {-0.995, "−100"}, {-0.005, "−1"}} {
		if got := signedPoints(c.x); got != c.want {
			t.Errorf("signedPoints(%v) = %q, want %q", c.x, got, c.want)
		}
	}
	if got := pointsText(-0.01); got != "−1 point" {
		t.Errorf("pointsText(-0.01) = %q", got)
	}
}
