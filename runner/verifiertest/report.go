package verifiertest

import (
	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/runner"
)

// Mismatch says how an outcome differs from its candidate's label.
type Mismatch string

const (
	// None: the verifier graded the candidate as labelled.
	None Mismatch = ""
	// FalsePass: the verifier passed a candidate that should fail or be
	// inconclusive. The most dangerous mismatch: a gate that lets bad work
	// through.
	FalsePass Mismatch = "false_pass"
	// FalseFail: the verifier failed, or found inconclusive, a candidate
	// that should pass: a valid alternative rejected.
	FalseFail Mismatch = "false_fail"
	// WrongVerdict: fail where inconclusive was expected, or the reverse.
	WrongVerdict Mismatch = "wrong_verdict"
	// WrongViolations: the right verdict with other confirmed violations
	// than the listed ones.
	WrongViolations Mismatch = "wrong_violations"
	// WrongToolErrors: the script's calls failed more or less often than
	// the candidate says; usually a typo in the script.
	WrongToolErrors Mismatch = "wrong_tool_errors"
	// VerifierError: the verifier panicked, was missing or returned no
	// required check. Never a pass, whatever was expected.
	VerifierError Mismatch = "verifier_error"
)

// Graded is one candidate graded.
type Graded struct {
	Env              string      `json:"env"`
	Task             string      `json:"task"`
	Verifier         string      `json:"verifier"`
	VerifierName     string      `json:"verifierName"`
	Name             string      `json:"name"`
	Why              string      `json:"why"`
	Expect           env.Verdict `json:"expect"`
	Got              env.Verdict `json:"got"`
	ExpectViolations []string    `json:"expectViolations"`
	Violations       []string    `json:"violations"`
	ExpectToolErrors int         `json:"expectToolErrors"`
	ToolErrors       int         `json:"toolErrors"`
	Reward           float64     `json:"reward"`
	Error            string      `json:"error,omitempty"`
	Mismatch         Mismatch    `json:"mismatch"`
	Detail           string      `json:"detail,omitempty"`
	// Result is the rollout's result.json, parsed; ResultJSON its bytes.
	Result     *runner.Result `json:"-"`
	ResultJSON []byte         `json:"-"`
}

// OK reports whether the verifier graded the candidate as labelled.
func (o Graded) OK() bool { return o.Mismatch == None }

// TaskRef names a task of an environment.
type TaskRef struct {
	Env  string `json:"env"`
	Task string `json:"task"`
}

// Report is the outcome of a verifier test run.
type Report struct {
	Outcomes []Graded `json:"outcomes"`
	// Untested are the selected tasks without a candidate file.
	Untested []TaskRef `json:"untested"`
}

// Summary counts a report's outcomes.
type Summary struct {
	Candidates  int `json:"candidates"`
	AsExpected  int `json:"asExpected"`
	FalsePasses int `json:"falsePasses"`
	FalseFails  int `json:"falseFails"`
	// Other counts the remaining mismatches: wrong verdicts, violations or
	// tool errors, and verifier errors.
	Other    int `json:"otherMismatches"`
	Untested int `json:"untestedTasks"`
}

// Summary counts r's outcomes by mismatch.
func (r *Report) Summary() Summary {
	s := Summary{Candidates: len(r.Outcomes), Untested: len(r.Untested)}
	for _, o := range r.Outcomes {
		switch o.Mismatch {
		case None:
			s.AsExpected++
		case FalsePass:
			s.FalsePasses++
		case FalseFail:
			s.FalseFails++
		default:
			s.Other++
		}
	}
	return s
}

// Mismatches returns the number of outcomes that differ from their label.
func (s Summary) Mismatches() int { return s.Candidates - s.AsExpected }

// Merge appends the outcomes and untested tasks of other to r.
func (r *Report) Merge(other *Report) {
	r.Outcomes = append(r.Outcomes, other.Outcomes...)
	r.Untested = append(r.Untested, other.Untested...)
}
