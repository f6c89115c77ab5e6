package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/agent-oracle/oracle/oracle/change"
	"github.com/agent-oracle/oracle/oracle/report"
)

// escaped is the text of a redacted value or place, which tools and agents
// wrote, as every outside string is shown (safe).
func escaped(s string) string { return safe(s) }

// What a report says of redaction (docs/redaction.md): each case whose
// environment redacts volatile fields counts the values redacted and those
// that differed between its runs, so a redaction never hides a difference
// without saying so; a changed file names the rules that take part in its
// differences (a redacted value that changed type, a rule added, removed or
// edited since the baseline was recorded); the summary counts what was
// hidden; check --show-redacted lists the values, in the text report.

// redactedNote counts what the rules of a case redacted, for its line: "3
// redacted values differ between runs (5 values redacted)"; "" when its
// environment redacts nothing of it.
func redactedNote(cr *report.Case) string {
	r := cr.Redacted
	if r == nil {
		return ""
	}
	values := fmt.Sprintf("%d %s redacted", r.Values, plural(r.Values, "value", "values"))
	switch {
	case r.Differ == nil:
		return values
	case *r.Differ == 0:
		return values + ", none differ between runs"
	}
	differ := fmt.Sprintf("%d redacted %s between runs", *r.Differ, plural(*r.Differ, "value differs", "values differ"))
	if *r.Differ == r.Values {
		return differ
	}
	return fmt.Sprintf("%s, of %d redacted", differ, r.Values)
}

// withRedactedNote adds the redaction count of cr to a case's note.
func withRedactedNote(note string, cr *report.Case) string {
	switch r := redactedNote(cr); {
	case r == "":
		return note
	case note == "":
		return r
	default:
		return note + "; " + r
	}
}

// redactedSummary says what redaction hid in the whole report, after its
// summary line; "" when it hid nothing.
func redactedSummary(r *report.Report, o Options) string {
	s := r.Summary
	if s.RedactedDiffer == 0 {
		return ""
	}
	return fmt.Sprintf("redacted: %d %s between runs in %d %s, hidden from the comparison by the environments' redact rules; %s check --show-redacted lists them",
		s.RedactedDiffer, plural(s.RedactedDiffer, "value differs", "values differ"), s.RedactedCases, plural(s.RedactedCases, "case", "cases"), o.program())
}

// redactionLines says how the rules take part in the differences of a
// file, one line each: the note, and where.
func redactionLines(f *change.FileDiff) []string {
	var out []string
	for _, n := range f.Redactions {
		pointers := make([]string, len(n.Pointers))
		for i, p := range n.Pointers {
			pointers[i] = escaped(p)
		}
		where := strings.Join(pointers, ", ")
		if more := n.Count - len(n.Pointers); more > 0 {
			where += fmt.Sprintf(" and %d more", more)
		}
		out = append(out, fmt.Sprintf("redaction at %s: %s", where, n.Note))
	}
	return out
}

// shownLines lists the redacted values of a case (check --show-redacted),
// one line each: the file and place, the value in the first run and, when
// it differed, in a later run, what both became and by which rule.
func shownLines(cr *report.Case) []string {
	r := cr.Redacted
	if r == nil || len(r.Shown) == 0 {
		return nil
	}
	out := make([]string, 0, len(r.Shown)+1)
	for _, v := range r.Shown {
		value := escaped(v.First)
		if v.Later != "" {
			value += " → " + escaped(v.Later)
		}
		rules := make([]string, len(v.Rules))
		for i, k := range v.Rules {
			rules[i] = fmt.Sprintf("redact[%d]", k)
		}
		out = append(out, fmt.Sprintf("%s %s: %s, redacted to %s by %s", escaped(v.File), escaped(v.Pointer), value, escaped(v.Value), strings.Join(rules, ", ")))
	}
	if r.More > 0 {
		out = append(out, fmt.Sprintf("and %d more", r.More))
	}
	return out
}

// writeTextRedactions writes the redaction lines of a file of the text
// report.
func writeTextRedactions(w io.Writer, f *change.FileDiff, indent string, c Colors) {
	for _, line := range redactionLines(f) {
		fmt.Fprintf(w, "%s  %s %s\n", indent, c.paint(c.Warn, "!"), line)
	}
}

// writeTextShown writes the redacted values of a case in the text report.
func writeTextShown(w io.Writer, cr *report.Case, indent string, c Colors) {
	lines := shownLines(cr)
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(w, "%sredacted values:\n", indent)
	for _, line := range lines {
		fmt.Fprintf(w, "%s  %s %s\n", indent, c.paint(c.Dim, "·"), line)
	}
}

// shows reports whether the text report lists the redacted values of cr,
// which it then lists though it is unchanged.
func shows(cr *report.Case) bool { return cr.Redacted != nil && len(cr.Redacted.Shown) > 0 }

// htmlRedactionRows are the rows of a file's diff on the HTML page that
// say how the rules take part in its differences.
func htmlRedactionRows(f *change.FileDiff) []htmlRow {
	var out []htmlRow
	for _, line := range redactionLines(f) {
		out = append(out, htmlRow{Sign: "!", Note: line})
	}
	return out
}
