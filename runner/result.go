package runner

import (
	"encoding/json"
	"strings"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/internal/canon"
)

// Termination reasons.
const (
	Completed    = "completed"
	MaxToolCalls = "max_tool_calls"
	Timeout      = "timeout"
	AgentError   = "agent_error"
)

// Result is the content of result.json: Silo's fields in Silo's order, with
// verdict and violations added. It carries no timestamp and no run id.
type Result struct {
	Passed            bool              `json:"passed"`
	Verdict           env.Verdict       `json:"verdict"`
	Reward            float64           `json:"reward"`
	RequiredPassed    int               `json:"requiredPassed"`
	RequiredTotal     int               `json:"requiredTotal"`
	FailedRequired    []string          `json:"failedRequired"`
	Violations        []string          `json:"violations"`
	ChecksPassed      int               `json:"checksPassed"`
	ChecksFailed      int               `json:"checksFailed"`
	ToolCalls         int               `json:"toolCalls"`
	ToolErrors        int               `json:"toolErrors"`
	TerminationReason string            `json:"terminationReason"`
	AgentOutput       json.RawMessage   `json:"agentOutput"`
	Error             *string           `json:"error"`
	Checks            []env.CheckResult `json:"checks"`
	// Infrastructure is true when the rollout ended as agent_error for
	// trouble with the infrastructure, not the agent (an
	// env.InfrastructureError: a model API that could not be reached, a
	// command that does not exist): the run is an error, never graded. It
	// is absent otherwise, so other results keep their bytes.
	Infrastructure bool `json:"infrastructure,omitempty"`
}

// Marshal writes the result as result.json bytes.
func (r *Result) Marshal() ([]byte, error) { return canon.Marshal(r) }

// grade builds the result from the verifier's checks. An error (the agent's,
// or the verifier's: missing, panicked, no required check) is recorded, and a
// verifier error makes the result fail whatever the checks say.
func grade(checks []env.CheckResult, err, verifyErr error) *Result {
	if checks == nil {
		checks = []env.CheckResult{}
	}
	s := env.Grade(checks)
	r := &Result{
		Passed:         s.Passed,
		Verdict:        s.Verdict,
		Reward:         s.Reward,
		RequiredPassed: s.RequiredPassed,
		RequiredTotal:  s.RequiredTotal,
		FailedRequired: s.FailedRequired,
		Violations:     s.Violations,
		ChecksPassed:   s.ChecksPassed,
		ChecksFailed:   s.ChecksFailed,
		Checks:         checks,
	}
	if err != nil {
		msg := strings.ReplaceAll(err.Error(), "\n", "; ")
		r.Error = &msg
	}
	if verifyErr != nil {
		r.Passed = false
		r.Verdict = env.Fail
	}
	return r
}
