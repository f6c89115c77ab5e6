package stats

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// DefaultMaxErrors is the share of a check's runs that may be
// infrastructure errors before the check is trouble: 10%.
const DefaultMaxErrors = 0.10

// KeyedDistribution is one case's distribution, by its key (env/agent/task).
type KeyedDistribution struct {
	Key  string
	Dist *Distribution
}

// Infra is the infrastructure errors of a check's fresh runs.
type Infra struct {
	Runs   int `json:"runs"`
	Errors int `json:"errors"`
	// MaxShare is the share of Runs that may be errors.
	MaxShare float64 `json:"maxShare"`
	// AllErrors lists, sorted, the cases all of whose runs were errors:
	// nothing about the agent can be said of them.
	AllErrors []string `json:"allErrors"`
}

// Infrastructure counts the infrastructure errors of cases. maxShare is the
// share of runs that may be errors (DefaultMaxErrors unless the user gives
// another), from 0 to 1.
func Infrastructure(cases []KeyedDistribution, maxShare float64) (Infra, error) {
	if math.IsNaN(maxShare) || maxShare < 0 || maxShare > 1 {
		return Infra{}, fmt.Errorf("infrastructure: the share of runs that may be errors is %v; give 0 to 1, such as 0.1", maxShare)
	}
	in := Infra{MaxShare: maxShare, AllErrors: []string{}}
	for _, c := range cases {
		if c.Dist == nil {
			return Infra{}, fmt.Errorf("infrastructure: case %s has no distribution", c.Key)
		}
		in.Runs += c.Dist.Runs
		in.Errors += c.Dist.Verdicts.Error
		if c.Dist.Runs > 0 && c.Dist.Verdicts.Error == c.Dist.Runs {
			in.AllErrors = append(in.AllErrors, c.Key)
		}
	}
	slices.Sort(in.AllErrors)
	return in, nil
}

// Trouble reports whether the errors make the check trouble (exit 2)
// rather than a result: a case all of whose runs were errors, or more than
// MaxShare of all runs.
func (in Infra) Trouble() bool {
	return len(in.AllErrors) > 0 || in.overShare()
}

// overShare compares Errors/Runs with MaxShare, with a tolerance for the
// share's decimal (0.1 of 40 runs is 4, not a hair above).
func (in Infra) overShare() bool {
	return in.Runs > 0 && float64(in.Errors) > in.MaxShare*float64(in.Runs)+1e-9
}

// Err is nil when the errors are no trouble, and otherwise an error of one
// line saying what failed and what to do.
func (in Infra) Err() error {
	if !in.Trouble() {
		return nil
	}
	const fix = "check the model API (address, key, quota) or the agent command, then run again"
	if len(in.AllErrors) > 0 {
		var names []string
		for _, k := range in.AllErrors[:min(3, len(in.AllErrors))] {
			names = append(names, name(k))
		}
		more := ""
		if len(in.AllErrors) > 3 {
			more = fmt.Sprintf(" and %d more", len(in.AllErrors)-3)
		}
		if len(in.AllErrors) == 1 {
			return fmt.Errorf("infrastructure: every run of %s was an error; %s", names[0], fix)
		}
		return fmt.Errorf("infrastructure: every run of %d cases was an error (%s%s); %s", len(in.AllErrors), strings.Join(names, ", "), more, fix)
	}
	return fmt.Errorf("infrastructure: %d of %d runs (%s) were errors, over the limit of %s; %s",
		in.Errors, in.Runs, percent(float64(in.Errors)/float64(in.Runs)), percent(in.MaxShare), fix)
}

// percent writes a share as a percentage with at most one decimal.
func percent(x float64) string {
	s := fmt.Sprintf("%.1f", 100*x)
	return strings.TrimSuffix(s, ".0") + "%"
}
