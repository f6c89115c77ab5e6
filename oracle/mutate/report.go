package mutate

import (
	"encoding/json"
	"math"
	"time"
)

// Outcome is what became of one mutant.
type Outcome string

// Outcomes.
const (
	// Caught: a case changed; Result.Verifiers says whether a verdict left
	// pass, Result.Artifacts which files moved
	Caught Outcome = "caught"
	// Survived: every case that ran it was unchanged
	Survived Outcome = "survived"
	// NoCoverage: no selected case executes the mutated line
	NoCoverage Outcome = "no_coverage"
	// Timeout: the check ran out of time (a mutant that loops)
	Timeout Outcome = "timeout"
	// Error: the mutant does not build or load; it is not counted
	Error Outcome = "error"
)

// Result is one mutant's outcome.
type Result struct {
	Mutant
	Outcome Outcome
	// Verifiers: a case's verdict left pass (grading alone catches it)
	Verifiers bool
	// Artifacts are the files that differed from their baselines: result,
	// state-diff, calls
	Artifacts []string
	// CoveredBy are the cases that executed the mutated line (when the
	// target can tell); Ran the cases its check ran; Changed the cases
	// that did not match
	CoveredBy, Ran, Changed []string
	Diff                    string
	Error                   string
	// Duration is the mutant's whole time (build and check),
	// CheckDuration its check's
	Duration, CheckDuration time.Duration
}

// Counts are the outcomes of a run's mutants.
type Counts struct {
	Caught, Verifiers, Survived, NoCoverage, Timeout, Error int
}

func (c *Counts) add(r *Result) {
	switch r.Outcome {
	case Caught:
		c.Caught++
		if r.Verifiers {
			c.Verifiers++
		}
	case Survived:
		c.Survived++
	case NoCoverage:
		c.NoCoverage++
	case Timeout:
		c.Timeout++
	case Error:
		c.Error++
	}
}

// Counted are the mutants a score counts: all but the errors.
func (c Counts) Counted() int { return c.Caught + c.Survived + c.NoCoverage + c.Timeout }

// Score is the percentage of counted mutants the gate detected: caught
// (by the verifiers or the baselines) or timed out.
func (c Counts) Score() float64 { return percent(c.Caught+c.Timeout, c.Counted()) }

// VerifierScore is the percentage the verifiers alone detected: a verdict
// left pass, or a timeout.
func (c Counts) VerifierScore() float64 { return percent(c.Verifiers+c.Timeout, c.Counted()) }

func percent(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return math.Round(1000*float64(n)/float64(of)) / 10
}

// Report is one run of mutate.
type Report struct {
	Env, Language string
	Files         []string
	Cases         []Case
	// Found mutants in the files; Selected those run (after --since and
	// --max)
	Found, Selected int
	Max             int
	Seed            uint64
	Timeout         time.Duration
	Mutants         []Result
	Counts          Counts
	Duration        time.Duration
}

// Hint says what a task would need to show for a surviving mutant to be
// caught.
func (r Result) Hint() string {
	if r.Outcome == NoCoverage {
		return "no selected case executes this line: add a task whose rollout calls the tool that reaches it"
	}
	switch r.Operator {
	case OpBoundary:
		return "a case whose data sits on this comparison's boundary (the two sides equal), so that " + r.Change() + " gives another answer"
	case OpNegate:
		return "a case that takes the other branch of this condition and shows the difference in an answer, the state or a tool's output"
	case OpArithmetic, OpConstant:
		return "a case whose answer, state or tool output carries the value computed here, so that " + r.Change() + " moves it"
	case OpLogical:
		return "a case where exactly one side of this condition holds"
	case OpReturnZero:
		return "a case whose artifacts carry the value this returns, so that its zero differs"
	case OpNoWrite:
		return "a case whose final state, or a later tool output, shows the field this writes"
	case OpSortOrder:
		return "a case whose answer or tool output lists at least two items this sort orders"
	case OpEmptyText:
		return "a case whose answer or tool output shows this text"
	}
	return "a case that shows what this line computes"
}

// The JSON report (docs/schemas/mutate.schema.json).

type jsonReport struct {
	FormatVersion int          `json:"formatVersion"`
	Env           string       `json:"env"`
	Language      string       `json:"language"`
	Files         []string     `json:"files"`
	Cases         []string     `json:"cases"`
	Found         int          `json:"found"`
	Selected      int          `json:"selected"`
	Max           int          `json:"max,omitempty"`
	Seed          uint64       `json:"seed"`
	TimeoutMs     int64        `json:"timeoutMs"`
	Summary       jsonSummary  `json:"summary"`
	Mutants       []jsonMutant `json:"mutants"`
	DurationMs    int64        `json:"durationMs"`
}

type jsonSummary struct {
	Counted       int     `json:"counted"`
	Caught        int     `json:"caught"`
	Verifiers     int     `json:"caughtByVerifiers"`
	BaselinesOnly int     `json:"caughtByBaselinesOnly"`
	Survived      int     `json:"survived"`
	NoCoverage    int     `json:"noCoverage"`
	Timeout       int     `json:"timeout"`
	Error         int     `json:"error"`
	Score         float64 `json:"score"`
	VerifierScore float64 `json:"verifierScore"`
}

type jsonMutant struct {
	ID          string   `json:"id"`
	File        string   `json:"file"`
	Line        int      `json:"line"`
	Column      int      `json:"column"`
	Operator    string   `json:"operator"`
	Original    string   `json:"original"`
	Replacement string   `json:"replacement"`
	Outcome     Outcome  `json:"outcome"`
	Verifiers   bool     `json:"caughtByVerifiers"`
	Artifacts   []string `json:"artifacts,omitempty"`
	CoveredBy   []string `json:"coveredBy,omitempty"`
	Ran         []string `json:"ran,omitempty"`
	Changed     []string `json:"changed,omitempty"`
	Hint        string   `json:"hint,omitempty"`
	Error       string   `json:"error,omitempty"`
	Diff        string   `json:"diff"`
	DurationMs  int64    `json:"durationMs"`
}

// MarshalJSON writes the report in its documented shape.
func (rep *Report) MarshalJSON() ([]byte, error) {
	c := rep.Counts
	out := jsonReport{FormatVersion: 1, Env: rep.Env, Language: rep.Language, Files: rep.Files, Cases: keys(rep.Cases),
		Found: rep.Found, Selected: rep.Selected, Max: rep.Max, Seed: rep.Seed, TimeoutMs: rep.Timeout.Milliseconds(),
		Summary: jsonSummary{Counted: c.Counted(), Caught: c.Caught, Verifiers: c.Verifiers, BaselinesOnly: c.Caught - c.Verifiers,
			Survived: c.Survived, NoCoverage: c.NoCoverage, Timeout: c.Timeout, Error: c.Error, Score: c.Score(), VerifierScore: c.VerifierScore()},
		Mutants:    []jsonMutant{},
		DurationMs: rep.Duration.Milliseconds()}
	if out.Files == nil {
		out.Files = []string{}
	}
	for _, r := range rep.Mutants {
		m := jsonMutant{ID: r.ID, File: r.File, Line: r.Line, Column: r.Column, Operator: r.Operator, Original: r.Original,
			Replacement: r.Replacement, Outcome: r.Outcome, Verifiers: r.Verifiers, Artifacts: r.Artifacts,
			CoveredBy: r.CoveredBy, Ran: r.Ran, Changed: r.Changed, Error: r.Error, Diff: r.Diff, DurationMs: r.Duration.Milliseconds()}
		if r.Outcome == Survived || r.Outcome == NoCoverage {
			m.Hint = r.Hint()
		}
		out.Mutants = append(out.Mutants, m)
	}
	return json.Marshal(out)
}
