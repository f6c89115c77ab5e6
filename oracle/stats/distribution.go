package stats

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/agent-oracle/oracle/env"
)

// MaxRuns is the most runs a distribution counts.
const MaxRuns = 100_000

// Distribution is the frozen behaviour of one case (environment, agent,
// task) over repeated runs: the counts of the outcomes that matter, and
// nothing that varies between two recordings of the same outcomes.
//
// Infrastructure errors are counted in Verdicts.Error and nowhere else;
// every other count is over the graded runs (Runs − Verdicts.Error).
type Distribution struct {
	// Runs is the number of runs, graded or not.
	Runs int
	// Verdicts counts the runs by verdict, and the infrastructure errors.
	Verdicts Verdicts
	// Terminations counts the graded runs by termination reason; reasons
	// no run ended with are left out.
	Terminations map[string]int
	// Checks counts, for each check (label and kind), the graded runs it
	// appeared in and those in which it held (every time, when a run has
	// it more than once). Sorted by label, then kind.
	Checks []CheckCount
	// Violations counts, for each confirmed forbidden effect, the runs that
	// confirmed it; effects no run confirmed are left out.
	Violations map[string]int
	// Rewards is the reward's histogram: graded runs by reward, keyed by the
	// reward with two decimals ("0.67", "1.00"); rewards no run had are
	// left out.
	Rewards map[string]int
}

// Verdicts counts runs by verdict.
type Verdicts struct {
	Error        int // infrastructure errors, not graded
	Fail         int
	Inconclusive int
	Pass         int
}

// CheckCount is how one check fared over the graded runs.
type CheckCount struct {
	Label  string
	Kind   env.Kind
	Runs   int // graded runs the check appeared in
	Passed int // of those, the runs in which it held
}

// Graded is the number of runs that were graded: all but the
// infrastructure errors.
func (d *Distribution) Graded() int { return d.Runs - d.Verdicts.Error }

// PassRate is the share of graded runs that passed, and false when no run
// was graded.
func (d *Distribution) PassRate() (float64, bool) {
	if d.Graded() == 0 {
		return 0, false
	}
	return float64(d.Verdicts.Pass) / float64(d.Graded()), true
}

// RewardKey is the key of the reward r in a histogram: r rounded to two
// decimals as the runner rounds it, written with both decimals.
func RewardKey(r float64) (string, error) {
	if math.IsNaN(r) || r < 0 || r > 1 {
		return "", fmt.Errorf("reward %v is not between 0 and 1", r)
	}
	cents := int(math.Floor(r*100 + 0.5))
	return fmt.Sprintf("%d.%02d", cents/100, cents%100), nil
}

// rewardCents parses a histogram key: "0.00" to "1.00", two decimals.
func rewardCents(key string) (int, bool) {
	if len(key) != 4 || key[1] != '.' || (key[0] != '0' && key[0] != '1') {
		return 0, false
	}
	n, err := strconv.Atoi(key[2:])
	if err != nil || key[2] < '0' || key[2] > '9' || key[3] < '0' || key[3] > '9' {
		return 0, false
	}
	cents := int(key[0]-'0')*100 + n
	return cents, cents <= 100
}

// Build counts outcomes, one for each run, into a distribution. An outcome
// that contradicts itself (a pass with a failed required check, violations
// that are not the failed forbidden checks, an unknown verdict, kind or
// termination reason, a reward outside 0..1) is an error naming the run.
func Build(outcomes []Run) (*Distribution, error) {
	if len(outcomes) == 0 {
		return nil, fmt.Errorf("distribution: no runs to count")
	}
	if len(outcomes) > MaxRuns {
		return nil, fmt.Errorf("distribution: %d runs is over the limit of %d", len(outcomes), MaxRuns)
	}
	d := &Distribution{
		Runs:         len(outcomes),
		Terminations: map[string]int{},
		Violations:   map[string]int{},
		Rewards:      map[string]int{},
	}
	type key struct {
		label string
		kind  env.Kind
	}
	checks := map[key]*CheckCount{}
	for i, o := range outcomes {
		if o.Error {
			d.Verdicts.Error++
			continue
		}
		if err := o.consistent(); err != nil {
			return nil, fmt.Errorf("distribution: run %d: %w", i+1, err)
		}
		switch o.Verdict {
		case env.Pass:
			d.Verdicts.Pass++
		case env.Fail:
			d.Verdicts.Fail++
		case env.Inconclusive:
			d.Verdicts.Inconclusive++
		}
		d.Terminations[o.Termination]++
		r, _ := RewardKey(o.Reward)
		d.Rewards[r]++
		held := map[key]bool{}
		for _, c := range o.Checks {
			k := key{c.Label, c.Kind}
			prev, seen := held[k]
			held[k] = c.Passed && (prev || !seen)
		}
		for k, ok := range held {
			cc := checks[k]
			if cc == nil {
				cc = &CheckCount{Label: k.label, Kind: k.kind}
				checks[k] = cc
			}
			cc.Runs++
			if ok {
				cc.Passed++
			}
		}
		for _, v := range uniq(o.Violations) {
			d.Violations[v]++
		}
	}
	d.Checks = make([]CheckCount, 0, len(checks))
	for _, cc := range checks {
		d.Checks = append(d.Checks, *cc)
	}
	sortChecks(d.Checks)
	return d, nil
}

// consistent reports whether a graded outcome holds together as the
// scoring rule (env.Grade) makes one: the verdict its checks give, or fail
// (a verifier error fails a run whatever its checks say); its violations
// the labels of its forbidden checks that did not hold.
func (o Run) consistent() error {
	if o.Verdict != env.Pass && o.Verdict != env.Fail && o.Verdict != env.Inconclusive {
		return fmt.Errorf("verdict %q is not pass, fail or inconclusive", o.Verdict)
	}
	if !knownTermination(o.Termination) {
		return fmt.Errorf("termination reason %q is not one of %s", o.Termination, strings.Join(terminations, ", "))
	}
	if _, err := RewardKey(o.Reward); err != nil {
		return err
	}
	results := make([]env.CheckResult, len(o.Checks))
	var failedForbidden []string
	for i, c := range o.Checks {
		if !knownKind(c.Kind) {
			return fmt.Errorf("check %q has kind %q, not required, optional, forbidden or coverage", c.Label, c.Kind)
		}
		results[i] = env.CheckResult{Label: c.Label, Kind: c.Kind, Passed: c.Passed}
		if c.Kind == env.Forbidden && !c.Passed {
			failedForbidden = append(failedForbidden, c.Label)
		}
	}
	if graded := env.Grade(results).Verdict; o.Verdict != graded && o.Verdict != env.Fail {
		return fmt.Errorf("verdict is %s but its checks make it %s", o.Verdict, graded)
	}
	if got, want := uniq(o.Violations), uniq(failedForbidden); !slices.Equal(got, want) {
		return fmt.Errorf("violations %q are not the forbidden checks that failed %q", got, want)
	}
	return nil
}

// uniq returns the distinct strings of s, sorted.
func uniq(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return slices.Compact(out)
}

func sortChecks(cs []CheckCount) {
	slices.SortFunc(cs, func(a, b CheckCount) int {
		return cmp.Or(strings.Compare(a.Label, b.Label), strings.Compare(string(a.Kind), string(b.Kind)))
	})
}

// Validate reports whether the counts of d hold together: the verdicts add
// up to the runs, the termination reasons and the rewards to the graded
// runs; no check appears in more runs than were graded or passes more often
// than it appears; a failed required check is a failed run, an incomplete
// coverage check a failed or inconclusive one; each violation is its
// forbidden check's failures and a failed run. The error says which count
// is wrong.
func (d *Distribution) Validate() error {
	if d.Runs < 1 || d.Runs > MaxRuns {
		return fmt.Errorf("runs is %d; a distribution has 1 to %d runs", d.Runs, MaxRuns)
	}
	v := d.Verdicts
	for _, c := range []struct {
		name string
		n    int
	}{{"error", v.Error}, {"fail", v.Fail}, {"inconclusive", v.Inconclusive}, {"pass", v.Pass}} {
		if c.n < 0 {
			return fmt.Errorf("verdicts.%s is negative (%d)", c.name, c.n)
		}
	}
	if sum := v.Error + v.Fail + v.Inconclusive + v.Pass; sum != d.Runs {
		return fmt.Errorf("the verdicts add up to %d but runs is %d", sum, d.Runs)
	}
	graded := d.Graded()
	if err := validCounts("terminations", d.Terminations, graded, func(k string) error {
		if !knownTermination(k) {
			return fmt.Errorf("terminations: %q is not one of %s", k, strings.Join(terminations, ", "))
		}
		return nil
	}); err != nil {
		return err
	}
	if err := validCounts("rewards", d.Rewards, graded, func(k string) error {
		if _, ok := rewardCents(k); !ok {
			return fmt.Errorf("rewards: %q is not a reward with two decimals from 0.00 to 1.00", k)
		}
		return nil
	}); err != nil {
		return err
	}
	type key struct {
		label string
		kind  env.Kind
	}
	seen := map[key]bool{}
	forbidden := map[string]int{} // failures of each forbidden check
	passedRequired, incomplete := 0, 0
	for _, c := range d.Checks {
		where := checkName(c)
		if !knownKind(c.Kind) {
			return fmt.Errorf("check %q has kind %q, not required, optional, forbidden or coverage", c.Label, c.Kind)
		}
		if seen[key{c.Label, c.Kind}] {
			return fmt.Errorf("%s is counted twice; keep one entry", where)
		}
		seen[key{c.Label, c.Kind}] = true
		switch {
		case c.Runs < 1:
			return fmt.Errorf("%s appears in %d runs; a check is listed only when it appeared", where, c.Runs)
		case c.Runs > graded:
			return fmt.Errorf("%s appears in %d runs but %d were graded", where, c.Runs, graded)
		case c.Passed < 0 || c.Passed > c.Runs:
			return fmt.Errorf("%s passed in %d runs; it must be from 0 to the %d runs it appears in", where, c.Passed, c.Runs)
		}
		failed := c.Runs - c.Passed
		switch c.Kind {
		case env.Required:
			passedRequired += c.Passed
			if failed > v.Fail {
				return fmt.Errorf("%s failed in %d runs but only %d runs failed", where, failed, v.Fail)
			}
		case env.Forbidden:
			if failed > v.Fail {
				return fmt.Errorf("%s was violated in %d runs but only %d runs failed", where, failed, v.Fail)
			}
			forbidden[c.Label] = failed
		case env.Coverage:
			incomplete += failed
			if failed > v.Fail+v.Inconclusive {
				return fmt.Errorf("%s was incomplete in %d runs but only %d runs failed or were inconclusive", where, failed, v.Fail+v.Inconclusive)
			}
		}
	}
	if v.Pass > passedRequired {
		return fmt.Errorf("%d runs passed but required checks held only %d times; a pass needs a required check that held", v.Pass, passedRequired)
	}
	if v.Inconclusive > incomplete {
		return fmt.Errorf("%d runs were inconclusive but coverage checks were incomplete only %d times", v.Inconclusive, incomplete)
	}
	for label, n := range d.Violations {
		if n < 1 {
			return fmt.Errorf("violations[%q] is %d; an effect no run confirmed is left out", label, n)
		}
	}
	for _, label := range sortedKeys(forbidden) {
		if n := d.Violations[label]; n != forbidden[label] {
			return fmt.Errorf("violations[%q] is %d but its forbidden check failed in %d runs", label, n, forbidden[label])
		}
	}
	for _, label := range sortedKeys(d.Violations) {
		if _, ok := forbidden[label]; !ok {
			return fmt.Errorf("violations[%q] has no forbidden check of that label", label)
		}
	}
	return nil
}

// checkName names a check in an error: check "label" (kind). It is a
// fmt.Stringer, formatted only when an error is.
type checkName CheckCount

func (c checkName) String() string { return fmt.Sprintf("check %q (%s)", c.Label, c.Kind) }

// validCounts checks a map of counts: valid keys, counts of at least 1,
// adding up to total.
func validCounts(name string, m map[string]int, total int, validKey func(string) error) error {
	sum, bad := 0, false
	for k, n := range m {
		bad = bad || n < 1 || n > MaxRuns || validKey(k) != nil
		sum += n
	}
	if bad {
		// the first wrong entry in key order, so that the error is always the same
		for _, k := range sortedKeys(m) {
			if err := validKey(k); err != nil {
				return err
			}
			switch n := m[k]; {
			case n < 1:
				return fmt.Errorf("%s[%q] is %d; an entry no run had is left out", name, k, n)
			case n > MaxRuns:
				return fmt.Errorf("%s[%q] is %d, over the limit of %d runs", name, k, n, MaxRuns)
			}
		}
	}
	if sum != total {
		return fmt.Errorf("%s add up to %d but %d runs were graded", name, sum, total)
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
