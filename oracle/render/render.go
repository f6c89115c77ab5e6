// Package render writes the model of a change that package oracle builds (a
// check report: its cases, file diffs, state-diff members, word-level string
// spans, invisible differences, tool errors) in every report format: text
// for a terminal or a CI log, JSON for programs (and for merging shards),
// Markdown for a pull-request comment or a job summary, JUnit XML for CI
// test reporting and one self-contained HTML page. It reads that model and
// nothing else. Each format writes a report from its cases as they end
// (Writer) or whole, with the same bytes; the formats are one table
// (Formats), which --format and --report-dir read, so a new format is one
// new file here and one row of that table.
package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agent-oracle/oracle/oracle/change"
	"github.com/agent-oracle/oracle/oracle/report"
	"github.com/agent-oracle/oracle/runner/statediff"
)

// SummaryLine counts a report's cases in one line.
func SummaryLine(r *report.Report) string {
	s := r.Summary
	parts := []string{}
	add := func(n int, what string) {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, what))
		}
	}
	add(s.Unchanged, "unchanged")
	if s.Changed > 0 {
		flips := []string{}
		if s.Regressions > 0 {
			flips = append(flips, fmt.Sprintf("%d %s", s.Regressions, plural(s.Regressions, "regression", "regressions")))
		}
		if s.Improvements > 0 {
			flips = append(flips, fmt.Sprintf("%d %s", s.Improvements, plural(s.Improvements, "improvement", "improvements")))
		}
		what := "changed"
		if len(flips) > 0 {
			what += " (" + strings.Join(flips, ", ") + ")"
		}
		add(s.Changed, what)
	}
	add(s.Missing, "missing")
	add(s.Obsolete, "obsolete")
	add(s.Nondeterministic, "nondeterministic")
	add(s.Error, plural(s.Error, "error", "errors"))
	if len(parts) == 0 {
		parts = append(parts, "nothing to check")
	}
	shard := ""
	if r.Shard != "" {
		shard = " (shard " + r.Shard + ")"
	}
	return fmt.Sprintf("%d %s%s: %s", s.Total, plural(s.Total, "case", "cases"), shard, strings.Join(parts, ", "))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Options shape a report. The program's name and the commands a report
// suggests are the caller's, which knows its name and flags; Colors, All,
// Verbose and MaxValue shape the text report only.
type Options struct {
	// Program is the program's name as the report gives it: in its title
	// ("oracle check") and in a note that names a command ("oracle record
	// adds it"). Empty means oracle.
	Program string
	// Commands are suggested on the line of a case that needs one.
	Commands Commands
	// Colors paint the text report.
	Colors Colors
	// All lists unchanged cases too in the text report.
	All bool
	// Verbose lists, in the text report, the changes of result.json that
	// a changed case's headline already says (oracle.Change.Folded) one by
	// one; without it they are named on one line. Markdown and HTML list
	// them in a collapsed section.
	Verbose bool
	// MaxValue bounds how much of a value other than a string the text
	// report shows; 0 means 160 characters. Strings are shown whole or,
	// when long, as a window around each change.
	MaxValue int
	// MaxCases bounds the cases needing attention that the text, Markdown
	// and HTML reports list in full: the first MaxCases are, the others
	// are counted. 0 means every case for text and HTML, and
	// DefaultMarkdownCases for Markdown, which is also bounded in size
	// (MarkdownBudget) to stay within what a CI host takes.
	MaxCases int
	// Elsewhere says where a bounded report's reader finds every case,
	// after a semicolon: "every case is in the report folder oracle-report".
	// Empty means a sentence naming the report folder and the JSON report.
	Elsewhere string
	// Made says what made the report, for the HTML page: the date and the
	// source commit (the report itself gives oracle's version and the
	// selection). The caller fills it, so that a page is the same bytes
	// whenever the same options are given.
	Made Made
	// CaseLink is the relative link from the HTML page to a case's own
	// page (its timeline, in a report folder), "" for none; nil is none.
	CaseLink func(cr *report.Case) string
}

// Made is what the HTML page says made it, besides the report's version
// and selection.
type Made struct {
	// Date is when the report was made, as it is shown (2026-03-04 10:20 UTC).
	Date string
	// Commit is the source commit the check ran on, when the environment
	// names one (GITHUB_SHA); Ref the branch or tag (GITHUB_REF_NAME).
	Commit, Ref string
}

// elsewhere is where every case of a bounded report is.
func (o Options) elsewhere() string {
	if o.Elsewhere != "" {
		return o.Elsewhere
	}
	return "every case is in the report folder (" + o.program() + " check --report-dir) and the JSON report"
}

// program is the program's name as the report gives it.
func (o Options) program() string {
	if o.Program == "" {
		return "oracle"
	}
	return o.Program
}

// Commands are the command lines a report suggests: Record freezes a
// missing baseline, Prune removes an obsolete one (e.g. "oracle record
// --prune"), Unfold lists the changes a headline folds. An empty one is
// not suggested.
type Commands struct {
	Record, Prune string
	// Unfold lists the changes a case's headline folds (e.g. "oracle
	// check --verbose"), named on the line that names them.
	Unfold string
}

// caseNote says what a case line says after the case's name: the verdicts
// and the reward old → new of a changed case, the fix of a missing or
// obsolete one, the error.
func caseNote(cr *report.Case, cmds Commands) string {
	if cr.Kind == report.KindDistribution {
		return distributionNote(cr) // distribution.go
	}
	switch cr.Status {
	case report.StatusChanged:
		var parts []string
		switch {
		case cr.Label != "":
			parts = append(parts, fmt.Sprintf("%s (%s → %s)", cr.Label, cr.OldVerdict, cr.NewVerdict))
		case cr.OldVerdict != "" && cr.OldVerdict == cr.NewVerdict:
			parts = append(parts, "verdict "+string(cr.NewVerdict)+", as before")
		case cr.OldVerdict != "" || cr.NewVerdict != "":
			parts = append(parts, fmt.Sprintf("verdict %s → %s", orNone(string(cr.OldVerdict)), orNone(string(cr.NewVerdict))))
		}
		if r := rewardNote(cr.OldReward, cr.NewReward); r != "" {
			parts = append(parts, r)
		}
		return strings.Join(parts, "; ")
	case report.StatusMissing:
		if cmds.Record == "" {
			return "no baseline"
		}
		return "no baseline; run " + cmds.Record + " to freeze it"
	case report.StatusObsolete:
		if cmds.Prune == "" {
			return "baseline with no case"
		}
		return "baseline with no case; " + cmds.Prune + " removes it"
	case report.StatusNondeterministic:
		if cr.Divergence != nil {
			return cr.Divergence.String()
		}
	case report.StatusError:
		return cr.Error
	}
	return ""
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func rewardNote(old, fresh *float64) string {
	switch {
	case old == nil && fresh == nil:
		return ""
	case old == nil:
		return "reward " + number(*fresh)
	case fresh == nil:
		return "reward " + number(*old) + " → none"
	case *old == *fresh:
		return "reward " + number(*fresh)
	}
	return "reward " + number(*old) + " → " + number(*fresh)
}

func number(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// segOp is how a piece of a rendered value is shown.
type segOp int

const (
	plain    segOp = iota // shared text, punctuation
	deleted               // words only the old side has (marked [-…-] on a plain terminal)
	inserted              // words only the new side has (marked {+…+})
	oldValue              // a whole old value (coloured, never marked)
	newValue              // a whole new value
	elided                // shared text left out of a long value
)

// seg is a piece of a rendered value. Its text may come from outside the
// program: each format writes it through its own escaping (safetext for
// text, HTML or Markdown escaping for the others). full is the whole value
// when text is cut.
type seg struct {
	op         segOp
	text, full string
}

// changeSegs renders a change's values: the word diff of a replaced string,
// or the old and new values.
func changeSegs(ch change.Change, maxValue int) []seg {
	if ch.Words != nil {
		return wordSegs(ch.Words)
	}
	switch {
	case ch.From != nil && ch.To != nil:
		return []seg{valueSeg(oldValue, ch.From, maxValue), {op: plain, text: " → "}, valueSeg(newValue, ch.To, maxValue)}
	case ch.To != nil:
		return []seg{valueSeg(newValue, ch.To, maxValue)}
	case ch.From != nil:
		return []seg{valueSeg(oldValue, ch.From, maxValue)}
	}
	return nil
}

// wordSegs renders a word diff as one quoted string, its text as it is
// (as valueSeg shows a string).
func wordSegs(spans []change.Span) []seg {
	out := []seg{{op: plain, text: `"`}}
	for _, s := range spans {
		switch s.Op {
		case change.Deleted:
			out = append(out, seg{op: deleted, text: s.Text})
		case change.Inserted:
			out = append(out, seg{op: inserted, text: s.Text})
		case change.Elided:
			out = append(out, seg{op: elided, text: "…"})
		default:
			out = append(out, seg{op: plain, text: s.Text})
		}
	}
	return append(out, seg{op: plain, text: `"`})
}

// sideSegs renders what two sides record at one place: the value when they
// agree, its word diff when both are strings, else old and new marked.
func sideSegs(a, b json.RawMessage, words []change.Span, maxValue int) []seg {
	switch {
	case bytes.Equal(a, b):
		return []seg{valueSeg(plain, a, maxValue)}
	case words != nil:
		return wordSegs(words)
	}
	return []seg{valueSeg(deleted, a, maxValue), valueSeg(inserted, b, maxValue)}
}

// fieldSegs renders one field change of a state diff: from → to, the value
// before the rollout as an old value and the one after as a new value, or
// what was added or removed.
func fieldSegs(f *statediff.Change, maxValue int) []seg {
	if f == nil {
		return nil // neither side changes the field (a hand-made report)
	}
	switch f.Op {
	case "add":
		return []seg{{op: plain, text: "added "}, valueSeg(newValue, f.To, maxValue)}
	case "remove":
		return []seg{{op: plain, text: "removed "}, valueSeg(oldValue, f.From, maxValue)}
	}
	return []seg{valueSeg(oldValue, f.From, maxValue), {op: plain, text: " → "}, valueSeg(newValue, f.To, maxValue)}
}

// fieldDiffSegs renders a field change of a state-diff member as both
// sides record it.
func fieldDiffSegs(f change.FieldDiff, maxValue int) []seg {
	switch {
	case f.Was == nil:
		return fieldSegs(f.Now, maxValue)
	case f.Now == nil:
		return fieldSegs(f.Was, maxValue)
	case f.Was.Op != f.Now.Op:
		out := append([]seg{{op: plain, text: "was "}}, fieldSegs(f.Was, maxValue)...)
		out = append(out, seg{op: plain, text: ", now "})
		return append(out, fieldSegs(f.Now, maxValue)...)
	}
	from := sideSegs(f.Was.From, f.Now.From, f.FromWords, maxValue)
	to := sideSegs(f.Was.To, f.Now.To, f.ToWords, maxValue)
	switch f.Now.Op {
	case "add":
		return append([]seg{{op: plain, text: "added "}}, to...)
	case "remove":
		return append([]seg{{op: plain, text: "removed "}}, from...)
	}
	return append(append(from, seg{op: plain, text: " → "}), to...)
}

// valueSeg renders a JSON value as reports show it: a string as its text
// between quotes, never cut, with nothing escaped again (a string holding
// JSON, such as an error carrying a tool's error, shows that JSON as it
// is); any other value as its JSON, cut to n characters (0 means 160) with
// an ellipsis, the whole kept in full.
func valueSeg(op segOp, v json.RawMessage, n int) seg {
	if s, ok := jsonString(v); ok {
		return seg{op: op, text: `"` + s + `"`}
	}
	text := string(v)
	if n <= 0 {
		n = 160
	}
	if utf8.RuneCountInString(text) <= n {
		return seg{op: op, text: text}
	}
	r := []rune(text)
	return seg{op: op, text: string(r[:n]) + "…", full: text}
}

// jsonString decodes v when it is a JSON string.
func jsonString(v json.RawMessage) (string, bool) {
	if len(v) == 0 || v[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return "", false
	}
	return s, true
}

// checkSegs renders one check of a story: its label and kind, how its
// outcome moved, and its detail (the word diff of a changed detail, old →
// new when they share no word).
func checkSegs(ch change.CheckChange) []seg {
	head := `"` + ch.Label + `"`
	if ch.Kind != "" {
		kind := ch.Kind
		if ch.OldKind != "" {
			kind = ch.OldKind + " → " + ch.Kind
		}
		head += " (" + kind + ")"
	}
	out := []seg{{op: plain, text: head + ": " + ch.What()}}
	quoted := func(op segOp, s string) seg { return seg{op: op, text: `"` + s + `"`} }
	switch {
	case ch.Words != nil:
		out = append(out, seg{op: plain, text: "; "})
		out = append(out, wordSegs(ch.Words)...)
	case ch.DetailChanged():
		out = append(out, seg{op: plain, text: "; "}, quoted(oldValue, *ch.OldDetail), seg{op: plain, text: " → "}, quoted(newValue, ch.NewDetail))
	case ch.Now == nil && ch.OldDetail != nil && *ch.OldDetail != "":
		out = append(out, seg{op: plain, text: "; "}, quoted(plain, *ch.OldDetail))
	case ch.NewDetail != "":
		out = append(out, seg{op: plain, text: "; "}, quoted(plain, ch.NewDetail))
	}
	return out
}

// checkMark is the mark of a story's check: ✓ when it passes now, ✗ when it
// fails, - when it is gone.
func checkMark(ch change.CheckChange) string {
	switch {
	case ch.Now == nil:
		return "-"
	case *ch.Now:
		return "✓"
	}
	return "✗"
}

// attention lists the cases that are not unchanged.
func attention(r *report.Report) []*report.Case {
	var out []*report.Case
	for _, c := range r.Cases {
		if c.Status != report.StatusUnchanged {
			out = append(out, c)
		}
	}
	return out
}

// filesOf returns the file diffs of a case: its changes, or how its runs
// diverged.
func filesOf(c *report.Case) []*change.FileDiff {
	if c.Divergence != nil && c.Divergence.Diff != nil {
		return []*change.FileDiff{c.Divergence.Diff}
	}
	return c.Files
}

// missingFile explains a file the case freezes and its baseline lacks.
func missingFile(program string) string {
	return "not in the baseline; " + program + " record adds it"
}

// wholeDocument names a change of the whole document.
const wholeDocument = "the whole document changed"

// pathOf is a change's path as reports print it.
func pathOf(ch change.Change) string {
	if ch.WholeDocument() {
		return "(" + wholeDocument + ")"
	}
	return ch.Location()
}

// stateNote says in words how a file differs as a whole, "" for a changed
// or unreadable file; program names the command that adds a missing one.
func stateNote(s change.FileState, program string) string {
	switch s {
	case change.FileAdded:
		return "new file"
	case change.FileRemoved:
		return "file gone"
	case change.FileMissing:
		return missingFile(program)
	}
	return ""
}
