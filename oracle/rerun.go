package oracle

import (
	"fmt"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/oracle/report"
)

// A check given an earlier check's JSON report (DistributionOptions.
// Previous, check --rerun-from) runs again only what was an error in it,
// with no state kept anywhere but that report. It decides only what it
// runs again and what provably did not change since: the report must have
// the check's own basis (Options.Basis: the same commit of the
// environments and agents, the same agents and options), or the check is
// refused; and
//
//   - a case whose status was error (it could not run, its runs all failed
//     for the infrastructure, its baseline could not be read), or whose
//     baseline is not now the one the report compared it with (by its
//     hash, baseline.Store.Hash), runs again in full;
//   - a distribution case some of whose runs failed for the infrastructure
//     keeps its graded runs, from the report, and makes as many runs again
//     as were errors;
//   - every other case is taken from the report as it was, not run;
//   - a case the report does not hold runs as in any check.
//
// The cases are compared with the baselines as they are now, and each
// distribution group is decided again over its cases, the runs taken from
// the report and the new ones together. The report must be of the same
// selection and shard (ParseReport checks it; the command takes the
// selection from it).

// checkRerunBasis refuses a rerun (o.Distribution.Previous) from a report
// whose basis is not o's, or when either is unknown: its cases could then
// have been decided by another environment, agent or option.
func checkRerunBasis(o Options) error {
	prev := o.Distribution.Previous
	switch {
	case prev == nil:
		return nil
	case prev.Basis == "":
		return fmt.Errorf("rerun: the earlier report does not say what its cases ran from (no basis: an older oracle, a check without a known commit, or shards of different bases), so none of its cases can be taken as they were; run the whole check")
	case o.Basis == "":
		return fmt.Errorf("rerun: this check cannot tell what its cases run from (no commit known), so it cannot show that the earlier report's cases did not change; run the whole check")
	case prev.Basis != o.Basis:
		return fmt.Errorf("rerun: the earlier report's cases ran from another commit, other agents or other options (basis %s, now %s), so none of them can be taken as they were; run the whole check", prev.Basis, o.Basis)
	}
	return nil
}

// previousCases indexes the cases of r by name; nil for no report.
func previousCases(r *report.Report) map[string]*report.Case {
	if r == nil {
		return nil
	}
	m := make(map[string]*report.Case, len(r.Cases))
	for _, c := range r.Cases {
		if c.Status != report.StatusObsolete {
			m[c.Case] = c
		}
	}
	return m
}

// planRerun is the plan of case c that the earlier report's case prev
// gives: nil when c runs as in any check (prev is nil, or its status was
// error).
func planRerun(r *baseline.Reader, c Case, o DistributionOptions, prev *report.Case) *casePlan {
	if prev == nil || prev.Status == report.StatusError {
		return nil
	}
	if now, err := r.Hash(c.Key); err != nil || prev.Baseline == "" || now != prev.Baseline {
		return nil // its baseline changed since (or cannot be told): it runs now
	}
	if prev.Kind != report.KindDistribution {
		return &casePlan{reuse: prev}
	}
	data, err := r.ReadStats(c.Key)
	p := planDistribution(r, c, o, data, err)
	if p.err != nil {
		return p
	}
	_, fresh, err := prev.Distribution.Parsed()
	switch {
	case err != nil:
		p.err = fmt.Errorf("the earlier report's case %s: %w", c.Key, err)
		return p
	case fresh == nil:
		return nil // it did not run: it runs now
	}
	if errors := fresh.Verdicts.Error; errors > 0 {
		// the graded runs kept, the errors made again
		p.prev, p.runs = fresh.WithoutErrors(), errors
		return p
	}
	cr := *prev
	d := *prev.Distribution
	d.Baseline = p.frozen // compared with the baseline as it is now
	cr.Distribution = &d
	p.reuse = &cr
	return p
}
