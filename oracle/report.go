package oracle

import (
	"encoding/json"
	"slices"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/oracle/report"
)

// newReport starts the report of sel. cases is the number of cases the
// shard runs; for an unsharded selection that is the selection's total,
// for a shard the caller sets Selection.Cases to the total before
// sharding.
func newReport(sel Selection, cases int) *report.Report {
	list := func(l []string) []string {
		if l == nil {
			return []string{}
		}
		return slices.Clone(l)
	}
	return &report.Report{
		FormatVersion: report.Format,
		Selection:     &report.Selection{Envs: list(sel.Envs), Agents: list(sel.Agents), Tasks: list(sel.Tasks), Cases: cases},
		Shard:         sel.Shard.String(),
		Cases:         []*report.Case{},
	}
}

// resultFacts is what a case line says of a result.json.
type resultFacts struct {
	verdict    env.Verdict
	reward     *float64
	toolErrors int
}

// factsOf reads the verdict, reward and tool-error count of result.json
// bytes. The verdict is the verdict field, or for artifacts without one
// (the original runner's) pass or fail from passed.
func factsOf(result []byte) resultFacts {
	var r struct {
		Passed     *bool       `json:"passed"`
		Verdict    env.Verdict `json:"verdict"`
		Reward     *float64    `json:"reward"`
		ToolErrors int         `json:"toolErrors"`
	}
	if json.Unmarshal(result, &r) != nil {
		return resultFacts{}
	}
	f := resultFacts{reward: r.Reward, toolErrors: r.ToolErrors}
	switch {
	case r.Verdict != "":
		f.verdict = r.Verdict
	case r.Passed == nil:
	case *r.Passed:
		f.verdict = env.Pass
	default:
		f.verdict = env.Fail
	}
	return f
}
