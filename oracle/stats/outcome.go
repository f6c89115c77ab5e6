package stats

import (
	"slices"

	"github.com/agent-oracle/oracle/env"
)

// The termination reasons of a graded run, as the runner writes them in
// result.json.
const (
	Completed    = "completed"
	MaxToolCalls = "max_tool_calls"
	Timeout      = "timeout"
	AgentError   = "agent_error"
)

// terminations lists the termination reasons a distribution may count.
var terminations = []string{AgentError, Completed, MaxToolCalls, Timeout}

// knownTermination reports whether reason is one of the runner's.
func knownTermination(reason string) bool { return slices.Contains(terminations, reason) }

// Run is one run of a case, as much of its result as a distribution
// counts.
type Run struct {
	// Error is true when the run failed for the infrastructure (an
	// unreachable model API, a 5xx that outlasted its retries, an exhausted
	// quota, an exec: binary that does not exist): such a run is not graded,
	// the fields below are ignored, and it is counted apart from the
	// verdicts.
	Error bool
	// Verdict is pass, fail or inconclusive.
	Verdict env.Verdict
	// Termination is how the rollout ended: completed, max_tool_calls,
	// timeout or agent_error.
	Termination string
	// Checks are the verifier's checks; a label may appear more than once.
	Checks []Check
	// Violations are the labels of the confirmed forbidden effects: those of
	// the forbidden checks that did not hold.
	Violations []string
	// Reward is checks passed / checks counted, between 0 and 1; it is
	// counted rounded to two decimals.
	Reward float64
}

// Check is one check of a run.
type Check struct {
	Label  string
	Kind   env.Kind
	Passed bool
}

// ChecksOf gives the checks of result.json as a run's Checks.
func ChecksOf(results []env.CheckResult) []Check {
	checks := make([]Check, len(results))
	for i, c := range results {
		checks[i] = Check{Label: c.Label, Kind: c.Kind, Passed: c.Passed}
	}
	return checks
}

// knownKind reports whether k is one of the four kinds of check.
func knownKind(k env.Kind) bool {
	switch k {
	case env.Required, env.OptionalKind, env.Forbidden, env.Coverage:
		return true
	}
	return false
}
