package report

import (
	"slices"
	"strings"
	"time"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/oracle/change"
	"github.com/agent-oracle/oracle/runner"
)

// Status is what check found for one case.
type Status string

const (
	StatusUnchanged        Status = "unchanged"        // the fresh artifacts are the baseline's bytes
	StatusChanged          Status = "changed"          // they differ; Files says how
	StatusMissing          Status = "missing"          // the case has no baseline
	StatusObsolete         Status = "obsolete"         // a baseline with no case
	StatusNondeterministic Status = "nondeterministic" // repeated runs differ
	StatusError            Status = "error"            // the case could not run or be compared
)

// Case is one case of a report.
type Case struct {
	Case   string `json:"case"`
	Env    string `json:"env"`
	Agent  string `json:"agent"`
	Task   string `json:"task"`
	Status Status `json:"status"`
	// Baseline is the hash of the baseline the case was compared with
	// (baseline.HashEntry; "none" when it had none), so that accept
	// --from refuses artifacts of a report whose baseline has changed
	// since; empty when its baseline could not be read.
	Baseline string `json:"baseline,omitempty"`
	// Kind is KindDistribution for a distribution case, empty for a case
	// compared byte for byte.
	Kind string `json:"kind,omitempty"`
	// Label is regression or improvement when the verdict flipped; for a
	// distribution case, when its group's decision is one and the task
	// moved that way (or gained a forbidden effect).
	Label change.Label `json:"label,omitempty"`
	// Verdicts before (the baseline's) and now (the fresh run's), when known.
	OldVerdict env.Verdict `json:"oldVerdict,omitempty"`
	NewVerdict env.Verdict `json:"newVerdict,omitempty"`
	// Rewards before and now, when known.
	OldReward  *float64 `json:"oldReward,omitempty"`
	NewReward  *float64 `json:"newReward,omitempty"`
	Violations []string `json:"violations,omitempty"`
	// NewToolErrors are the tool errors of a changed case's fresh calls
	// that its baseline's calls.json does not have (the calls matched as a
	// sequence), GoneToolErrors the baseline's errors that the fresh calls
	// no longer have, both in call order. They are set when the baseline
	// holds calls.json (ToolErrorsFrom "calls").
	NewToolErrors  []change.FailedCall `json:"newToolErrors,omitempty"`
	GoneToolErrors []change.FailedCall `json:"goneToolErrors,omitempty"`
	// ToolErrors are all the tool errors of the fresh run of a changed
	// case, read from its trace, in call order, and OldToolErrors counts
	// the baseline's: what is known when the environment freezes no
	// calls.json (ToolErrorsFrom "trace").
	ToolErrors    []change.FailedCall `json:"toolErrors,omitempty"`
	OldToolErrors int                 `json:"oldToolErrors,omitempty"`
	// ToolErrorsFrom says how the tool errors of a changed case were
	// found: "calls" (compared with the baseline's calls.json) or "trace"
	// (the fresh trace only).
	ToolErrorsFrom string `json:"toolErrorsFrom,omitempty"`
	// Checks are the checks of a changed case, as the baseline and the
	// fresh run grade them: label, kind, Was and Now (the Story details
	// those that moved).
	Checks []change.CheckChange `json:"checks,omitempty"`
	// Redacted says what the environment's redaction rules redacted in the
	// fresh artifacts of a case that ran and agreed; nil when it declares
	// none for them.
	Redacted *Redacted `json:"redacted,omitempty"`

	// Distribution is a distribution case's runs and their diagnostics.
	Distribution *Distribution `json:"distribution,omitempty"`
	// Story is what a changed case says first: the checks that flipped
	// or changed their detail, and its new violations (see Story); nil
	// when its checks and violations did not change.
	Story *change.Story `json:"story,omitempty"`

	Files      []*change.FileDiff `json:"files,omitempty"`
	Divergence *Divergence        `json:"divergence,omitempty"`
	Error      string             `json:"error,omitempty"`
	// Elapsed is how long the case's runs took, for the JUnit report; it is
	// not part of the JSON report, which two checks give byte for byte.
	Elapsed time.Duration `json:"-"`
}

// Key returns the case's key.
func (c *Case) Key() baseline.Key {
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
	// RedactedDiffer sums the redacted values that differed between the
	// runs of a case (Redacted.Differ), and RedactedCases counts the cases
	// with any: what redaction hid from the comparison.
	RedactedDiffer int `json:"redactedDiffer,omitempty"`
	RedactedCases  int `json:"redactedCases,omitempty"`
}

// Report is the outcome of a check. Its JSON form says what it is a report
// of, so that shard reports can be merged safely: the format version, the
// oracle version, the selection and its number of cases before sharding,
// and the shard.
type Report struct {
	FormatVersion int        `json:"formatVersion"`
	Oracle        string     `json:"oracleVersion,omitempty"`
	Selection     *Selection `json:"selection"`
	// Gate is the statistical gate's decisions over the distribution
	// cases; nil when the report has none.
	Gate *Gate `json:"gate,omitempty"`
	// Shard is i/n for the report of one shard, empty otherwise.
	Shard string `json:"shard,omitempty"`
	// Sandbox is how the cases' exec agents were contained: bwrap, or
	// none when any ran without the sandbox (also in one shard of a
	// merged report); absent when no exec agent ran.
	Sandbox runner.SandboxMode `json:"sandbox,omitempty"`
	// Commit is the source commit the check ran on, when the caller knows
	// it (the CI's, or the binary's own); a merge refuses shards of
	// different commits.
	Commit string `json:"commit,omitempty"`
	// Baselines is, in the report of a shard, the fingerprint of the
	// baselines the selection (before sharding) was checked against: the
	// same for every shard of one run, so a merge refuses shards that saw
	// different baselines. An unsharded check and a merge have none.
	Baselines string `json:"baselines,omitempty"`
	// Basis is the digest of what the cases ran from (Options.Basis): a
	// check --rerun-from takes cases from this report only when its own
	// basis is the same; empty when the caller could not tell.
	Basis   string  `json:"basis,omitempty"`
	Summary Summary `json:"summary"`
	Cases   []*Case `json:"cases"`
}

// Selection says what a report is a report of: the selection's
// flags and how many cases it holds before sharding (obsolete baselines
// not counted).
type Selection struct {
	Envs   []string `json:"env"`
	Agents []string `json:"agent"`
	Tasks  []string `json:"task"`
	Cases  int      `json:"cases"`
}

// Statuses are the statuses a report may hold.
var Statuses = []Status{StatusUnchanged, StatusChanged, StatusMissing, StatusObsolete, StatusNondeterministic, StatusError}

// StatusList names the statuses a report may hold, for errors.
func StatusList() string {
	names := make([]string, len(Statuses))
	for i, s := range Statuses {
		names[i] = string(s)
	}
	return strings.Join(names, ", ")
}

// Finish sorts the cases and computes the summary.
func (r *Report) Finish() {
	slices.SortFunc(r.Cases, func(a, b *Case) int { return a.Key().Compare(b.Key()) })
	s := Summary{}
	for _, c := range r.Cases {
		s.Add(c)
	}
	r.Summary = s
}

// Add counts the case c.
func (s *Summary) Add(c *Case) {
	s.Total++
	switch c.Status {
	case StatusUnchanged:
		s.Unchanged++
	case StatusChanged:
		s.Changed++
	case StatusMissing:
		s.Missing++
	case StatusObsolete:
		s.Obsolete++
	case StatusNondeterministic:
		s.Nondeterministic++
	case StatusError:
		s.Error++
	}
	switch c.Label {
	case change.LabelRegression:
		s.Regressions++
	case change.LabelImprovement:
		s.Improvements++
	}
	if len(c.Violations) > 0 {
		s.Violations++
	}
	if r := c.Redacted; r != nil && r.Differ != nil && *r.Differ > 0 {
		s.RedactedDiffer += *r.Differ
		s.RedactedCases++
	}
}

// Ran counts the cases the report ran (every case but obsolete ones).
func (r *Report) Ran() int {
	n := 0
	for _, c := range r.Cases {
		if c.Status != StatusObsolete {
			n++
		}
	}
	return n
}

// Flags are the selection's flags as a command line gives them ("--env crm
// --task 'TASK-00?'"), "" for every case.
func (s *Selection) Flags() string {
	var parts []string
	for _, f := range []struct {
		flag string
		list []string
	}{{"env", s.Envs}, {"agent", s.Agents}, {"task", s.Tasks}} {
		for _, p := range f.list {
			parts = append(parts, "--"+f.flag+" "+ShellQuote(p))
		}
	}
	return strings.Join(parts, " ")
}

// ShellQuote quotes a pattern for a shell when it holds more than a name.
func ShellQuote(p string) string {
	for _, r := range p {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-/:", r)) {
			return "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
		}
	}
	return p
}
