package oracle

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/oracle/report"
	"github.com/agent-oracle/oracle/oracle/stats"
)

// A distribution case is a case whose agent's bytes never repeat (a
// model): record --runs N freezes how often each outcome happened over N
// runs (package stats, <TASK>.stats.json) instead of the artifacts' bytes,
// and check runs it as many times again and decides over the tasks of each
// (environment, agent) group whether the pass rate moved more than the
// runs' noise allows (stats.Decide). Which kind a case is, its baseline
// says: a check compares the other cases of the same selection byte for
// byte.

// DistributionOptions tune the distribution cases of a record or a check.
type DistributionOptions struct {
	// Runs is, for record, the runs of each case: 2 or more records every
	// selected case as a distribution, fewer records them byte for byte.
	// For check it overrides the runs each distribution case was recorded
	// with; 0 runs each as recorded.
	Runs int
	// Margin is the change in mean pass rate too small to matter
	// (stats.Options.Margin), from 0 to below 1.
	Margin float64
	// MaxErrors is the share of the fresh runs that may be infrastructure
	// errors before the check (or the record) is trouble; 0 means
	// stats.DefaultMaxErrors, a negative value none.
	MaxErrors float64
	// Detect, for record, is the drop in pass rate (a share) the user
	// wants the check to detect: the record report says, for each group,
	// whether its floor is above it and how many runs would reach it. 0
	// asks nothing.
	Detect float64
	// AllowRegressions, for record, writes distributions that record would
	// otherwise refuse: worse than the distributions they replace (as a
	// check would decide), with a confirmed forbidden effect, or with
	// fewer than MinGraded graded runs.
	AllowRegressions bool
	// Previous, for check, is the report of an earlier check of the same
	// selection (ParseReport): only what was an error in it runs again,
	// the other cases are taken from it (see Rerun).
	Previous *report.Report
}

// maxErrors is the share MaxErrors gives.
func (o DistributionOptions) maxErrors() float64 {
	switch {
	case o.MaxErrors == 0:
		return stats.DefaultMaxErrors
	case o.MaxErrors < 0:
		return 0
	}
	return o.MaxErrors
}

// Validate checks the options' ranges; the error names the option.
func (o DistributionOptions) Validate() error {
	switch {
	case o.Runs < 0 || o.Runs > stats.MaxRuns:
		return fmt.Errorf("runs %d is out of range; give 2 to %d", o.Runs, stats.MaxRuns)
	case math.IsNaN(o.Margin) || o.Margin < 0 || o.Margin >= 1:
		return fmt.Errorf("margin %v is out of range; give a change in pass rate from 0 to below 1, such as 0.05 for 5 points", o.Margin)
	case math.IsNaN(o.MaxErrors) || o.MaxErrors > 1:
		return fmt.Errorf("max-errors %v is out of range; give a share of the runs from 0 to 1, such as 0.1 for 10%%", o.MaxErrors)
	case math.IsNaN(o.Detect) || o.Detect < 0 || o.Detect >= 1:
		return fmt.Errorf("detect %v is out of range; give a drop in pass rate above 0 and below 1, such as 0.1 for 10 points", o.Detect)
	}
	return nil
}

// casePlan is how a record or a check treats a case other than by running
// it and comparing its bytes: as a distribution, or taken from an earlier
// report.
type casePlan struct {
	// dist: the case is a distribution case, run runs times.
	dist bool
	runs int
	// baseline is the frozen distribution (nil when recording), and
	// frozen its file's bytes.
	baseline *stats.Distribution
	frozen   []byte
	// prev are the graded runs an earlier check already made of the case
	// (Rerun): the fresh runs are added to them.
	prev *stats.Distribution
	// err is why the case cannot run: its baseline cannot be used.
	err error
	// reuse is the case's report in an earlier check, taken as it is.
	reuse *report.Case
	// replaces names the kind of baseline a record replaces, "" for none.
	replaces string
}

// kind names for the record report.
const (
	kindBytes = "byte-for-byte"
)

// checkPlanner returns how a check treats each case (nil: compare it byte
// for byte as always); dists are the keys whose baselines are
// distributions, found by the walk of the store: the other cases cost
// nothing more.
func checkPlanner(r *baseline.Reader, o DistributionOptions, dists map[baseline.Key]bool) func(c Case) *casePlan {
	prev := previousCases(o.Previous)
	return func(c Case) *casePlan {
		if prev != nil {
			if p := planRerun(r, c, o, prev[c.Key.String()]); p != nil {
				return p
			}
		}
		if !dists[c.Key] {
			return nil
		}
		return planCheck(r, c, o)
	}
}

// planCheck is how a check treats the case c whatever an earlier report
// says: nil to compare it byte for byte.
func planCheck(r *baseline.Reader, c Case, o DistributionOptions) *casePlan {
	data, err := r.ReadStats(c.Key)
	if errors.Is(err, baseline.ErrNotFound) {
		return nil
	}
	return planDistribution(r, c, o, data, err)
}

// planDistribution is the plan of a distribution case from its baseline's
// bytes (data, or the error reading them): parsed, with the runs to make.
// A case that has byte-for-byte files too is an error.
func planDistribution(r *baseline.Reader, c Case, o DistributionOptions, data []byte, err error) *casePlan {
	p := &casePlan{dist: true}
	if err != nil {
		if errors.Is(err, baseline.ErrNotFound) {
			err = fmt.Errorf("baseline %s: its distribution is gone", c.Key)
		}
		p.err = err
		return p
	}
	switch kind, err := r.KindOf(c.Key); {
	case err != nil:
		p.err = err
		return p
	case kind == baseline.BothKinds:
		p.dist = false
		p.err = fmt.Errorf("baseline %s has both a distribution (%s) and byte-for-byte files; record the case again as one kind: record --runs N, or record",
			c.Key, filepath.ToSlash(filepath.Join(baseline.Dir, c.Key.Env, c.Key.Agent, c.Key.Task+"."+baseline.StatsFile)))
		return p
	}
	d, err := stats.Parse(data)
	if err != nil {
		p.err = fmt.Errorf("baseline %s: %w; restore it with git checkout or record it again with record --runs N", filepath.ToSlash(filepath.Join(baseline.Dir, c.Key.Env, c.Key.Agent, c.Key.Task+"."+baseline.StatsFile)), err)
		return p
	}
	p.baseline, p.frozen, p.runs = d, data, d.Runs
	if o.Runs > 0 {
		p.runs = o.Runs
	}
	return p
}
