package report

import (
	"encoding/json"
	"fmt"

	"github.com/agent-oracle/oracle/oracle/stats"
)

// Distribution is what a report holds of a distribution case: enough
// for a merge of shard reports to decide as the whole check would have.
type Distribution struct {
	// Runs is how many times the check ran the case.
	Runs int `json:"runs"`
	// Baseline is the frozen distribution, as <TASK>.stats.json holds it,
	// and Fresh the check's, in the same form.
	Baseline json.RawMessage `json:"baseline"`
	Fresh    json.RawMessage `json:"fresh"`
	// Gate is what the decision of the case's group (its environment and
	// agent; Report.Gate has it whole) says.
	Gate stats.Conclusion `json:"gate,omitempty"`
	// Task is the task's diagnostics in that decision; nil when it was
	// not compared.
	Task *stats.TaskResult `json:"task,omitempty"`
	// Said is what the decision says the task did (SaidDropped, SaidFell,
	// SaidNoise, …); "" when it was not decided.
	Said string `json:"said,omitempty"`
	// InfrastructureError is the first of the fresh runs' infrastructure
	// errors, when one was.
	InfrastructureError string `json:"infrastructureError,omitempty"`
}

// Gate is the statistical gate of a check's distribution cases.
type Gate struct {
	// Margin and MaxErrors are the options the groups were decided with.
	Margin    float64 `json:"margin"`
	MaxErrors float64 `json:"maxErrors"`
	// Groups are the decisions, one for each environment and agent, sorted.
	Groups []*GroupDecision `json:"groups"`
	// Infrastructure counts the fresh runs that failed for the
	// infrastructure; Trouble makes the check exit 2.
	Infrastructure stats.Infra `json:"infrastructure"`
}

// Trouble is the error of a gate whose runs failed for the
// infrastructure too often to be a result, or nil.
func (g *Gate) Trouble() error {
	if g == nil {
		return nil
	}
	return g.Infrastructure.Err()
}

// GroupDecision is the gate's decision over the distribution cases of one
// environment and agent.
type GroupDecision struct {
	Env   string `json:"env"`
	Agent string `json:"agent"`
	// Cases is how many distribution cases the group holds, Runs the
	// fresh runs of each (the most, when they differ).
	Cases int `json:"cases"`
	Runs  int `json:"runs"`
	// Decision is nil when no decision could be made (Error says why).
	Decision *stats.Decision `json:"decision"`
	// Summary is the decision in words (stats.Decision.Summary).
	Summary stats.Explanation `json:"summary"`
	Error   string            `json:"error,omitempty"`
}

// Name is env/agent, how reports name the group.
func (g *GroupDecision) Name() string { return g.Env + "/" + g.Agent }

// Parsed reads back a case's two distributions: its baseline's and its
// fresh runs'.
func (d *Distribution) Parsed() (base, fresh *stats.Distribution, err error) {
	if d == nil {
		return nil, nil, nil // a distribution case that could not run
	}
	if base, err = stats.Parse(d.Baseline); err != nil {
		return nil, nil, fmt.Errorf("baseline: %w", err)
	}
	if fresh, err = stats.Parse(d.Fresh); err != nil {
		return nil, nil, fmt.Errorf("fresh: %w", err)
	}
	return base, fresh, nil
}

// What a distribution case's own task did in its group's decision
// (Distribution.Said).
const (
	// SaidForbidden: a run confirmed a forbidden effect (a regression).
	SaidForbidden = "forbidden effect"
	// SaidDropped: the task's own exact test says it dropped (a
	// regression).
	SaidDropped = "dropped"
	// SaidFell: the group's mean pass rate fell and this task with it (a
	// regression).
	SaidFell = "fell with the group"
	// SaidRose: the group's mean pass rate rose and this task with it (an
	// improvement).
	SaidRose = "rose with the group"
	// SaidRoseAlone: the task's own test says it rose; alone, that
	// decides nothing.
	SaidRoseAlone = "rose"
	// SaidNoise: the pass rate moved within its runs' noise.
	SaidNoise = "moved within noise"
	// SaidSame: the pass rate did not move.
	SaidSame = "did not move"
)

// SaidOf is what the decision dec says of task t (nil when it was not
// compared); forbidden when a run of it confirmed a forbidden effect that
// fails the gate. A case is changed only for what its own task did: a
// task that did not move is unchanged in a group that regressed.
func SaidOf(dec *stats.Decision, t *stats.TaskResult, forbidden bool) string {
	switch {
	case forbidden:
		return SaidForbidden
	case t == nil:
		return ""
	case t.Move == stats.Dropped:
		return SaidDropped
	case dec.RatesVerdict == stats.Regression && t.Difference < 0:
		return SaidFell
	case dec.Verdict == stats.Improvement && t.Difference > 0:
		return SaidRose
	case t.Move == stats.Rose:
		return SaidRoseAlone
	case t.Move == stats.WithinNoise:
		return SaidNoise
	}
	return SaidSame
}

// CheckDistribution refuses a case of a report whose distribution does not
// hold together: a distribution case that ran without both distributions,
// one that does not parse, or a distribution on a case of the other kind.
func (c *Case) CheckDistribution() error {
	switch {
	case c.Kind != "" && c.Kind != KindDistribution:
		return fmt.Errorf("kind %q is not %q", c.Kind, KindDistribution)
	case c.Kind == "" && c.Distribution != nil:
		return fmt.Errorf("it has a distribution but no kind %q", KindDistribution)
	case c.Kind == KindDistribution && c.Distribution == nil && c.Status != StatusError:
		return fmt.Errorf("a distribution case with status %s has no distribution", c.Status)
	case c.Distribution == nil:
		return nil
	}
	if c.Distribution.Runs < 1 {
		return fmt.Errorf("distribution.runs is %d", c.Distribution.Runs)
	}
	if _, _, err := c.Distribution.Parsed(); err != nil {
		return fmt.Errorf("distribution.%v", err)
	}
	return nil
}
