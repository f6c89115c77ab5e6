package stats

import (
	"fmt"
	"maps"
)

// WithoutErrors is d with its infrastructure errors left out: the graded
// runs only, as if the runs that failed for the infrastructure had never
// been made. It is nil when every run was an error. A check that runs the
// errors again adds the new runs to it (Add).
func (d *Distribution) WithoutErrors() *Distribution {
	if d.Graded() == 0 {
		return nil
	}
	out := d.clone()
	out.Runs -= out.Verdicts.Error
	out.Verdicts.Error = 0
	return out
}

// Add is the distribution of the runs of a and those of b together: every
// count summed. Either may be nil (no runs); both nil is an error, as is a
// sum over MaxRuns or one that does not Validate.
func Add(a, b *Distribution) (*Distribution, error) {
	switch {
	case a == nil && b == nil:
		return nil, fmt.Errorf("distribution: no runs to add")
	case a == nil:
		return b.clone(), nil
	case b == nil:
		return a.clone(), nil
	}
	if a.Runs+b.Runs > MaxRuns {
		return nil, fmt.Errorf("distribution: %d runs is over the limit of %d", a.Runs+b.Runs, MaxRuns)
	}
	out := a.clone()
	out.Runs += b.Runs
	out.Verdicts.Error += b.Verdicts.Error
	out.Verdicts.Fail += b.Verdicts.Fail
	out.Verdicts.Inconclusive += b.Verdicts.Inconclusive
	out.Verdicts.Pass += b.Verdicts.Pass
	for _, m := range []struct{ to, from map[string]int }{
		{out.Terminations, b.Terminations}, {out.Violations, b.Violations}, {out.Rewards, b.Rewards},
	} {
		for k, n := range m.from {
			m.to[k] += n
		}
	}
	at := map[checkKey]int{}
	for i, c := range out.Checks {
		at[checkKey{c.Label, string(c.Kind)}] = i
	}
	for _, c := range b.Checks {
		if i, ok := at[checkKey{c.Label, string(c.Kind)}]; ok {
			out.Checks[i].Runs += c.Runs
			out.Checks[i].Passed += c.Passed
			continue
		}
		out.Checks = append(out.Checks, c)
	}
	sortChecks(out.Checks)
	if err := out.Validate(); err != nil {
		return nil, fmt.Errorf("distribution: the sum does not hold together: %w", err)
	}
	return out, nil
}

type checkKey struct{ label, kind string }

// clone is a deep copy of d, its maps never nil.
func (d *Distribution) clone() *Distribution {
	out := *d
	out.Terminations = cloneCounts(d.Terminations)
	out.Violations = cloneCounts(d.Violations)
	out.Rewards = cloneCounts(d.Rewards)
	out.Checks = append([]CheckCount(nil), d.Checks...)
	return &out
}

func cloneCounts(m map[string]int) map[string]int {
	if m == nil {
		return map[string]int{}
	}
	return maps.Clone(m)
}
