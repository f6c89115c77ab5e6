package oracle

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/internal/safeio"
)

// Status is what check found for one case.
type Status string

const (
	Unchanged        Status = "unchanged"
	Changed          Status = "changed"
	Missing          Status = "missing"
	Obsolete         Status = "obsolete"
	Nondeterministic Status = "nondeterministic"
	Error            Status = "error"
)

// Labels of a change that flips the verdict.
const (
	Regression  = "regression"  // pass → not pass
	Improvement = "improvement" // not pass → pass
)

// CaseReport is one case of a report.
type CaseReport struct {
	Case   string `json:"case"`
	Env    string `json:"env"`
	Agent  string `json:"agent"`
	Task   string `json:"task"`
	Status Status `json:"status"`
	// Label is regression or improvement when the verdict flipped.
	Label string `json:"label,omitempty"`
	// Verdicts before (the baseline's) and now (the fresh run's), when known.
	OldVerdict string      `json:"oldVerdict,omitempty"`
	NewVerdict string      `json:"newVerdict,omitempty"`
	Violations []string    `json:"violations,omitempty"`
	Files      []*FileDiff `json:"files,omitempty"`
	Divergence *Divergence `json:"divergence,omitempty"`
	Error      string      `json:"error,omitempty"`
}

// Key returns the case's key.
func (c *CaseReport) Key() baseline.Key {
	return baseline.Key{Env: c.Env, Agent: c.Agent, Task: c.Task}
}

// Summary counts the cases of a report by status. Violations counts cases
// whose fresh run confirmed a forbidden effect, on its own line, never folded
// into an average.
type Summary struct {
	Total            int `json:"total"`
	Unchanged        int `json:"unchanged"`
	Changed          int `json:"changed"`
	Missing          int `json:"missing"`
	Obsolete         int `json:"obsolete"`
	Nondeterministic int `json:"nondeterministic"`
	Error            int `json:"error"`
	Regressions      int `json:"regressions"`
	Improvements     int `json:"improvements"`
	Violations       int `json:"violations"`
}

// Report is the outcome of a check.
type Report struct {
	Shard   string        `json:"shard,omitempty"`
	Summary Summary       `json:"summary"`
	Cases   []*CaseReport `json:"cases"`
}

// finish sorts the cases and computes the summary.
func (r *Report) finish() {
	sort.Slice(r.Cases, func(i, j int) bool { return r.Cases[i].Key().Less(r.Cases[j].Key()) })
	s := Summary{Total: len(r.Cases)}
	for _, c := range r.Cases {
		switch c.Status {
		case Unchanged:
			s.Unchanged++
		case Changed:
			s.Changed++
		case Missing:
			s.Missing++
		case Obsolete:
			s.Obsolete++
		case Nondeterministic:
			s.Nondeterministic++
		case Error:
			s.Error++
		}
		switch c.Label {
		case Regression:
			s.Regressions++
		case Improvement:
			s.Improvements++
		}
		if len(c.Violations) > 0 {
			s.Violations++
		}
	}
	r.Summary = s
}

// ExitCode is the report's exit status: 2 if any case is an error, 1 if any
// changed, is missing, obsolete or nondeterministic, 0 when all are unchanged.
func (r *Report) ExitCode() int {
	s := r.Summary
	switch {
	case s.Error > 0:
		return 2
	case s.Changed+s.Missing+s.Obsolete+s.Nondeterministic > 0:
		return 1
	}
	return 0
}

// MergeReports joins the JSON reports of shards into one.
func MergeReports(paths []string) (*Report, error) {
	merged := &Report{}
	seen := map[string]string{}
	for _, p := range paths {
		data, err := safeio.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("merge: %w", err)
		}
		var r Report
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, fmt.Errorf("merge: %s is not a JSON report of oracle check (--format json): %v", p, err)
		}
		for _, c := range r.Cases {
			if prev, dup := seen[c.Case]; dup {
				return nil, fmt.Errorf("merge: case %s is in both %s and %s; merge the reports of distinct shards", c.Case, prev, p)
			}
			seen[c.Case] = p
			merged.Cases = append(merged.Cases, c)
		}
	}
	merged.finish()
	return merged, nil
}

// verdictOf reads the verdict of result.json bytes: the verdict field, or
// for artifacts without one (the original runner's) pass or fail from
// passed.
func verdictOf(result []byte) string {
	var r struct {
		Passed  *bool       `json:"passed"`
		Verdict env.Verdict `json:"verdict"`
	}
	if json.Unmarshal(result, &r) != nil {
		return ""
	}
	switch {
	case r.Verdict != "":
		return string(r.Verdict)
	case r.Passed == nil:
		return ""
	case *r.Passed:
		return string(env.Pass)
	}
	return string(env.Fail)
}
