package stats

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/agent-oracle/oracle/env"
	"github.com/google/go-cmp/cmp"
)

// run builds a graded outcome from its checks, graded as the runner grades.
func run(term string, checks ...Check) Run {
	results := make([]env.CheckResult, len(checks))
	for i, c := range checks {
		results[i] = env.CheckResult{Label: c.Label, Kind: c.Kind, Passed: c.Passed}
	}
	s := env.Grade(results)
	return Run{Verdict: s.Verdict, Termination: term, Checks: checks, Violations: s.Violations, Reward: s.Reward}
}

func req(label string, ok bool) Check  { return Check{label, env.Required, ok} }
func opt(label string, ok bool) Check  { return Check{label, env.OptionalKind, ok} }
func forb(label string, ok bool) Check { return Check{label, env.Forbidden, ok} }
func cov(label string, ok bool) Check  { return Check{label, env.Coverage, ok} }

func TestBuild(t *testing.T) {
	outcomes := []Run{
		run(Completed, req("stage set", true), opt("note added", true), forb("other deal changed", true)),
		run(Completed, req("stage set", true), opt("note added", false), forb("other deal changed", true)),
		run(Timeout, req("stage set", false), forb("other deal changed", false)),
		run(Completed, req("stage set", true), cov("send log complete", false)),
		{Error: true, Verdict: "garbage", Reward: math.NaN()}, // not graded: the rest is ignored
		// a label twice in one run: it held only if it held both times
		run(Completed, req("stage set", true), req("stage set", false), forb("other deal changed", true)),
	}
	got, err := Build(outcomes)
	if err != nil {
		t.Fatal(err)
	}
	want := &Distribution{
		Runs:         6,
		Verdicts:     Verdicts{Error: 1, Fail: 2, Inconclusive: 1, Pass: 2},
		Terminations: map[string]int{Completed: 4, Timeout: 1},
		Checks: []CheckCount{
			{Label: "note added", Kind: env.OptionalKind, Runs: 2, Passed: 1},
			{Label: "other deal changed", Kind: env.Forbidden, Runs: 4, Passed: 3},
			{Label: "send log complete", Kind: env.Coverage, Runs: 1, Passed: 0},
			{Label: "stage set", Kind: env.Required, Runs: 5, Passed: 3},
		},
		Violations: map[string]int{"other deal changed": 1},
		// rewards: 3/3, 2/3, 0/2, 1/1, 2/3
		Rewards: map[string]int{"1.00": 2, "0.67": 2, "0.00": 1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("Build (-want +got):\n%s", diff)
	}
	if err := got.Validate(); err != nil {
		t.Fatalf("Build's distribution does not validate: %v", err)
	}
	if r, ok := got.PassRate(); !ok || r != 0.4 || got.Graded() != 5 {
		t.Errorf("PassRate = %v, %v; Graded = %d", r, ok, got.Graded())
	}
}

func TestBuildRefuses(t *testing.T) {
	good := run(Completed, req("done", true))
	for _, c := range []struct {
		name    string
		mutate  func(*Run)
		wantErr string
	}{
		{"unknown verdict", func(o *Run) { o.Verdict = "error" }, `verdict "error" is not pass, fail or inconclusive`},
		{"unknown termination", func(o *Run) { o.Termination = "crashed" }, `termination reason "crashed" is not one of`},
		{"no termination", func(o *Run) { o.Termination = "" }, `termination reason "" is not one of`},
		{"reward above 1", func(o *Run) { o.Reward = 1.5 }, "reward 1.5 is not between 0 and 1"},
		{"negative reward", func(o *Run) { o.Reward = -0.1 }, "reward -0.1 is not between 0 and 1"},
		{"NaN reward", func(o *Run) { o.Reward = math.NaN() }, "reward NaN is not between 0 and 1"},
		{"unknown kind", func(o *Run) { o.Checks = []Check{{"done", "mandatory", true}} }, `has kind "mandatory"`},
		{"pass with a failed required check", func(o *Run) { o.Checks = []Check{req("done", false)} }, "verdict is pass but its checks make it fail"},
		{"pass without a required check", func(o *Run) { o.Checks = []Check{opt("nice", true)} }, "verdict is pass but its checks make it fail"},
		{"inconclusive with complete coverage", func(o *Run) { o.Verdict = env.Inconclusive }, "verdict is inconclusive but its checks make it pass"},
		{"violation without its check", func(o *Run) { o.Violations = []string{"leak"} }, `violations ["leak"] are not the forbidden checks that failed []`},
		{"failed forbidden check not a violation", func(o *Run) {
			o.Verdict, o.Checks = env.Fail, []Check{req("done", true), forb("leak", false)}
		}, `violations [] are not the forbidden checks that failed ["leak"]`},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := good
			o.Checks = append([]Check(nil), good.Checks...)
			c.mutate(&o)
			_, err := Build([]Run{good, o})
			if err == nil || !strings.Contains(err.Error(), c.wantErr) || !strings.Contains(err.Error(), "run 2:") {
				t.Fatalf("Build = %v, want an error on run 2 with %q", err, c.wantErr)
			}
		})
	}
	if _, err := Build(nil); err == nil {
		t.Error("Build(nil): no error")
	}
	if _, err := Build(make([]Run, MaxRuns+1)); err == nil {
		t.Error("Build of too many runs: no error")
	}
	// a fail is always possible: a verifier error fails a run whatever its checks say
	failed := good
	failed.Verdict = env.Fail
	if _, err := Build([]Run{failed}); err != nil {
		t.Errorf("a failed run with passing checks: %v", err)
	}
}

func TestRewardKey(t *testing.T) {
	for _, c := range []struct {
		r    float64
		want string
	}{{0, "0.00"}, {1, "1.00"}, {0.67, "0.67"}, {2.0 / 3, "0.67"}, {0.005, "0.01"}, {0.1 + 0.2, "0.30"}, {0.999, "1.00"}} {
		got, err := RewardKey(c.r)
		if err != nil || got != c.want {
			t.Errorf("RewardKey(%v) = %q, %v; want %q", c.r, got, err, c.want)
		}
		if cents, ok := rewardCents(got); !ok || float64(cents)/100 != env.Round2(c.r) {
			t.Errorf("rewardCents(%q) = %d, %v; want %v", got, cents, ok, env.Round2(c.r))
		}
	}
	for _, bad := range []string{"1", "1.0", "1.01", "2.00", "0.5", "-0.10", "0.1a", "0,50", " 0.50", "0.+1"} {
		if _, ok := rewardCents(bad); ok {
			t.Errorf("rewardCents(%q) accepted", bad)
		}
	}
}

// randomOutcomes makes n outcomes with random checks, graded as the runner
// grades (some runs failing for a verifier error, some infrastructure
// errors).
func randomOutcomes(rng *rand.Rand, n int) []Run {
	labels := []string{"a", "b", "c", "<&>", "ünïcode"}
	kinds := []env.Kind{env.Required, env.OptionalKind, env.Forbidden, env.Coverage}
	out := make([]Run, n)
	for i := range out {
		if rng.IntN(10) == 0 {
			out[i] = Run{Error: true}
			continue
		}
		var checks []Check
		for range rng.IntN(6) {
			checks = append(checks, Check{labels[rng.IntN(len(labels))], kinds[rng.IntN(len(kinds))], rng.IntN(3) > 0})
		}
		out[i] = run(terminations[rng.IntN(len(terminations))], checks...)
		if rng.IntN(10) == 0 {
			out[i].Verdict = env.Fail
		}
	}
	return out
}

// Whatever the runs, Build's distribution validates and survives a round
// trip through its file.
func TestBuildRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for i := range 100 {
		d, err := Build(randomOutcomes(rng, 1+rng.IntN(30)))
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if err := d.Validate(); err != nil {
			t.Fatalf("case %d: Build's distribution does not validate: %v", i, err)
		}
		data, err := d.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		back, err := Parse(data)
		if err != nil {
			t.Fatalf("case %d: Parse(Marshal) = %v\n%s", i, err, data)
		}
		if diff := cmp.Diff(d, back); diff != "" {
			t.Fatalf("case %d: round trip (-built +parsed):\n%s", i, diff)
		}
	}
}

func TestChecksOf(t *testing.T) {
	got := ChecksOf([]env.CheckResult{
		env.Check("stage set", true, "detail is not counted"),
		env.Forbid("another deal changed", true, ""),
		env.Covered("log complete", false, ""),
	})
	want := []Check{req("stage set", true), forb("another deal changed", false), cov("log complete", false)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ChecksOf (-want +got):\n%s", diff)
	}
}
