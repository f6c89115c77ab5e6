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

	"github.com/agent-oracle/oracle/oracle"
)

// SummaryLine counts a report's cases in one line.
func SummaryLine(r *oracle.Report) string {
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
// suggests are the caller's, which knows its name and flags; Colors, All
// and MaxValue shape the text report only.
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
	// MaxValue bounds how much of a value other than a string the text
	// report shows; 0 means 160 characters. Strings are shown whole or,
	// when long, as a window around each change.
	MaxValue int
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
// --prune"). An empty one is not suggested.
type Commands struct {
	Record, Prune string
}

// caseNote says what a case line says after the case's name: the verdicts
// and the reward old → new of a changed case, the fix of a missing or
// obsolete one, the error.
func caseNote(cr *oracle.CaseReport, cmds Commands) string {
	if cr.Kind == oracle.KindDistribution {
		return distributionNote(cr) // distribution.go
	}
	switch cr.Status {
	case oracle.StatusChanged:
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
	case oracle.StatusMissing:
		if cmds.Record == "" {
			return "no baseline"
		}
		return "no baseline; run " + cmds.Record + " to freeze it"
	case oracle.StatusObsolete:
		if cmds.Prune == "" {
			return "baseline with no case"
		}
		return "baseline with no case; " + cmds.Prune + " removes it"
	case oracle.StatusNondeterministic:
		if cr.Divergence != nil {
			return cr.Divergence.String()
		}
	case oracle.StatusError:
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

type seg struct {
	op   segOp
	text string
}

// changeSegs renders a change's values: the word diff of a replaced string,
// or the old and new values.
func changeSegs(ch oracle.Change, maxValue int) []seg {
	if ch.Words != nil {
		return wordSegs(ch.Words)
	}
	switch {
	case ch.From != nil && ch.To != nil:
		return []seg{{oldValue, clip(ch.From, maxValue)}, {plain, " → "}, {newValue, clip(ch.To, maxValue)}}
	case ch.To != nil:
		return []seg{{newValue, clip(ch.To, maxValue)}}
	case ch.From != nil:
		return []seg{{oldValue, clip(ch.From, maxValue)}}
	}
	return nil
}

// wordSegs renders a word diff as one quoted JSON string.
func wordSegs(spans []oracle.Span) []seg {
	out := []seg{{plain, `"`}}
	for _, s := range spans {
		switch s.Op {
		case oracle.Deleted:
			out = append(out, seg{deleted, jsonText(s.Text)})
		case oracle.Inserted:
			out = append(out, seg{inserted, jsonText(s.Text)})
		case oracle.Elided:
			out = append(out, seg{elided, "…"})
		default:
			out = append(out, seg{plain, jsonText(s.Text)})
		}
	}
	return append(out, seg{plain, `"`})
}

// sideSegs renders what two sides record at one place: the value when they
// agree, its word diff when both are strings, else old and new marked.
func sideSegs(a, b json.RawMessage, words []oracle.Span, maxValue int) []seg {
	switch {
	case bytes.Equal(a, b):
		return []seg{{plain, clip(a, maxValue)}}
	case words != nil:
		return wordSegs(words)
	}
	return []seg{{deleted, clip(a, maxValue)}, {inserted, clip(b, maxValue)}}
}

// fieldSegs renders one field change of a state diff: from → to, or what
// was added or removed.
func fieldSegs(f *oracle.FieldChange, maxValue int, op segOp) []seg {
	switch f.Op {
	case "add":
		return []seg{{plain, "added "}, {op, clip(f.To, maxValue)}}
	case "remove":
		return []seg{{plain, "removed "}, {op, clip(f.From, maxValue)}}
	}
	return []seg{{op, clip(f.From, maxValue)}, {plain, " → "}, {op, clip(f.To, maxValue)}}
}

// fieldDiffSegs renders a field change of a state-diff member as both
// sides record it.
func fieldDiffSegs(f oracle.FieldDiff, maxValue int) []seg {
	switch {
	case f.Was == nil:
		return fieldSegs(f.Now, maxValue, newValue)
	case f.Now == nil:
		return fieldSegs(f.Was, maxValue, oldValue)
	case f.Was.Op != f.Now.Op:
		out := append([]seg{{plain, "was "}}, fieldSegs(f.Was, maxValue, oldValue)...)
		out = append(out, seg{plain, ", now "})
		return append(out, fieldSegs(f.Now, maxValue, newValue)...)
	}
	from := sideSegs(f.Was.From, f.Now.From, f.FromWords, maxValue)
	to := sideSegs(f.Was.To, f.Now.To, f.ToWords, maxValue)
	switch f.Now.Op {
	case "add":
		return append([]seg{{plain, "added "}}, to...)
	case "remove":
		return append([]seg{{plain, "removed "}}, from...)
	}
	return append(append(from, seg{plain, " → "}), to...)
}

// jsonText writes s as inside a JSON string, without the quotes.
func jsonText(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(s) != nil {
		return s
	}
	out := strings.TrimSuffix(buf.String(), "\n")
	return out[1 : len(out)-1]
}

// clip shortens a JSON value that is not a string to n characters (0 means
// 160); strings are never cut, so a change at their end stays visible.
func clip(v json.RawMessage, n int) string {
	s := string(v)
	if n <= 0 {
		n = 160
	}
	if strings.HasPrefix(s, `"`) || utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// attention lists the cases that are not unchanged.
func attention(r *oracle.Report) []*oracle.CaseReport {
	var out []*oracle.CaseReport
	for _, c := range r.Cases {
		if c.Status != oracle.StatusUnchanged {
			out = append(out, c)
		}
	}
	return out
}

// filesOf returns the file diffs of a case: its changes, or how its runs
// diverged.
func filesOf(c *oracle.CaseReport) []*oracle.FileDiff {
	if c.Divergence != nil && c.Divergence.Diff != nil {
		return []*oracle.FileDiff{c.Divergence.Diff}
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
func pathOf(ch oracle.Change) string {
	if ch.WholeDocument() {
		return "(" + wholeDocument + ")"
	}
	return ch.Location()
}

// stateNote says in words how a file differs as a whole, "" for a changed
// or unreadable file; program names the command that adds a missing one.
func stateNote(s oracle.FileState, program string) string {
	switch s {
	case oracle.FileAdded:
		return "new file"
	case oracle.FileRemoved:
		return "file gone"
	case oracle.FileMissing:
		return missingFile(program)
	}
	return ""
}
