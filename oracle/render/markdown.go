package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/agent-oracle/oracle/oracle"
)

// Markdown writes the report as a pull-request comment or a CI job summary
// (GitHub-flavoured Markdown): a headline, a table of the cases that need
// attention, and each case's semantic diff in a collapsible section.
//
// Values are never altered: every value, path and note is written as HTML
// text with each punctuation mark Markdown could read as a character
// reference, so no backtick, pipe, ampersand or asterisk in a value can end
// a code span, split a table cell or start emphasis, and the rendered text
// is the value. The notes of cases suggest o.Commands.
func Markdown(out io.Writer, r *oracle.Report, o Options) error {
	w := &errWriter{w: out}
	icon := "✅"
	switch s := r.Summary; {
	case s.Error > 0:
		icon = "⚠️"
	case s.Unchanged < s.Total:
		icon = "❌"
	}
	fmt.Fprintf(w, "### %s %s check\n\n%s\n\n", icon, mdText(o.program()), mdText(SummaryLine(r)))
	if v := r.Summary.Violations; v > 0 {
		fmt.Fprintf(w, "**Violations:** %d %s with a confirmed forbidden effect.\n\n", v, plural(v, "case", "cases"))
	}
	if s := redactedSummary(r, o); s != "" {
		fmt.Fprintf(w, "%s\n\n", mdText(s))
	}
	markdownGate(w, r) // distribution.go
	cases := attention(r)
	if len(cases) == 0 {
		return w.err
	}
	fmt.Fprintln(w, "| case | status | note |")
	fmt.Fprintln(w, "| --- | --- | --- |")
	for _, c := range cases {
		note := mdText(withRedactedNote(caseNote(c, o.Commands), c))
		if c.Label != "" {
			note = "<b>" + note + "</b>"
		}
		fmt.Fprintf(w, "| %s | %s | %s |\n", mdCode(c.Case), c.Status, note)
	}
	for _, c := range cases {
		files := filesOf(c)
		if len(files) == 0 && len(c.ToolErrors) == 0 && len(c.NewToolErrors) == 0 && len(c.GoneToolErrors) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n<details><summary>%s %s</summary>\n\n", mdCode(c.Case), c.Status)
		for _, f := range files {
			writeMarkdownFile(w, f, o.program())
		}
		if len(c.NewToolErrors) > 0 {
			fmt.Fprintf(w, "**New tool errors:** %d (calls.json against the baseline's)\n\n", len(c.NewToolErrors))
			writeMarkdownToolErrors(w, c.NewToolErrors)
		}
		if len(c.GoneToolErrors) > 0 {
			fmt.Fprintf(w, "**Tool errors gone:** %s\n\n", mdText(goneList(c.GoneToolErrors)))
		}
		if len(c.ToolErrors) > 0 {
			fmt.Fprintf(w, "**Tool errors of this run:** %d (the baseline's run had %d; %s)\n\n", len(c.ToolErrors), c.OldToolErrors, mdText(noCallsNote))
			writeMarkdownToolErrors(w, c.ToolErrors)
		}
		fmt.Fprintln(w, "</details>")
	}
	return w.err
}

// markdownWriter keeps the cases that need attention, which are the ones
// the Markdown report lists.
type markdownWriter struct {
	o         Options
	attention []*oracle.CaseReport
}

func newMarkdownWriter(o Options) Writer { return &markdownWriter{o: o} }

func (m *markdownWriter) Case(cr *oracle.CaseReport) error {
	if cr.Status != oracle.StatusUnchanged {
		m.attention = append(m.attention, cr)
	}
	return nil
}

func (m *markdownWriter) Finish(w io.Writer, r *oracle.Report) error {
	return Markdown(w, withCases(r, m.attention), m.o)
}

func (m *markdownWriter) Close() {}

func writeMarkdownToolErrors(w io.Writer, tes []oracle.ToolError) {
	fmt.Fprintln(w, "| call | tool | code | message |")
	fmt.Fprintln(w, "| --- | --- | --- | --- |")
	for _, te := range tes {
		call := ""
		if te.Call > 0 {
			call = fmt.Sprintf("#%d", te.Call)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", call, mdCode(te.Tool), mdCode(te.Code), mdText(te.Message))
	}
	fmt.Fprintln(w)
}

func writeMarkdownFile(w io.Writer, f *oracle.FileDiff, program string) {
	fmt.Fprintf(w, "**%s**", mdText(f.File))
	if note := stateNote(f.State, program); note != "" {
		fmt.Fprint(w, " ("+mdText(note)+")")
	}
	if f.Error != "" {
		fmt.Fprintf(w, ": %s", mdText(f.Error))
	}
	fmt.Fprint(w, "\n\n")
	if len(f.Changes) > 0 {
		fmt.Fprintln(w, "| op | path | check | old | new |")
		fmt.Fprintln(w, "| --- | --- | --- | --- | --- |")
		for _, ch := range f.Changes {
			old, fresh := changeSides(ch)
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", ch.Op, mdPath(ch), mdText(ch.Label), old, fresh)
		}
		fmt.Fprintln(w)
	}
	if len(f.Members) > 0 {
		fmt.Fprintln(w, "| member | how | path | baseline | now |")
		fmt.Fprintln(w, "| --- | --- | --- | --- | --- |")
		for _, m := range f.Members {
			name := mdCode(m.Name())
			for _, fd := range m.Fields {
				old, fresh := fieldSides(fd)
				fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", name, mdText(m.What()+": "+fd.What()), mdCode(fd.Path), old, fresh)
			}
			if m.OldValue != nil || m.NewValue != nil {
				fmt.Fprintf(w, "| %s | %s |  | %s | %s |\n", name, mdText(m.What()), mdValue(m.OldValue), mdValue(m.NewValue))
			}
			for _, ch := range m.Value {
				old, fresh := changeSides(ch)
				fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", name, mdText(m.What()), mdPath(ch), old, fresh)
			}
		}
		fmt.Fprintln(w)
	}
	for _, inv := range f.Invisible {
		fmt.Fprintf(w, "- invisible difference: %s\n", mdText(inv.String()))
	}
	for _, line := range redactionLines(f) {
		fmt.Fprintf(w, "- %s\n", mdText(line))
	}
	if len(f.Invisible)+len(f.Redactions) > 0 {
		fmt.Fprintln(w)
	}
}

// changeSides renders a change's old and new cells; a word diff marks the
// deleted words in the old cell and the inserted ones in the new.
func changeSides(ch oracle.Change) (string, string) {
	if ch.Words != nil {
		ss := wordSegs(ch.Words)
		return mdSegs(ss, false), mdSegs(ss, true)
	}
	return mdValue(ch.From), mdValue(ch.To)
}

// fieldSides renders a state-diff field's baseline and fresh cells. When
// both sides change the field the same way, the values they agree on are
// plain and the words that differ are marked (<del> in the baseline's cell,
// <ins> in the fresh one), long strings with a window of context around
// each change, as in the text and HTML reports.
func fieldSides(fd oracle.FieldDiff) (old, fresh string) {
	if fd.Was != nil && fd.Now != nil && fd.Was.Op == fd.Now.Op {
		ss := fieldDiffSegs(fd, 0)
		return mdSegs(ss, false), mdSegs(ss, true)
	}
	if fd.Was != nil {
		old = mdSegs(fieldSegs(fd.Was, 0, oldValue), false)
	}
	if fd.Now != nil {
		fresh = mdSegs(fieldSegs(fd.Now, 0, newValue), true)
	}
	return old, fresh
}

func mdPath(ch oracle.Change) string {
	if ch.WholeDocument() {
		return mdText(wholeDocument)
	}
	return mdCode(ch.Location())
}

func mdValue(v []byte) string {
	if v == nil {
		return ""
	}
	return mdCode(string(v))
}

// mdSegs renders one side of segments as code: the new side's inserted
// words in <ins>, the old side's deleted words in <del>.
func mdSegs(ss []seg, newSide bool) string {
	var b strings.Builder
	b.WriteString("<code>")
	for _, s := range ss {
		switch {
		case s.op == deleted && !newSide:
			b.WriteString("<del>" + mdEscape(s.text) + "</del>")
		case s.op == inserted && newSide:
			b.WriteString("<ins>" + mdEscape(s.text) + "</ins>")
		case s.op == deleted || s.op == inserted:
		default:
			b.WriteString(mdEscape(s.text))
		}
	}
	b.WriteString("</code>")
	return b.String()
}

// mdCode writes s as code in a table cell.
func mdCode(s string) string {
	if s == "" {
		return ""
	}
	return "<code>" + mdEscape(s) + "</code>"
}

// mdText writes s as text in a table cell or a paragraph.
func mdText(s string) string { return mdEscape(s) }

// mdEscape writes the ASCII punctuation marks of s that inline Markdown,
// HTML, a table or GitHub's math could read as syntax, and the spaces at its
// ends, as character references, and line breaks as spaces: CommonMark
// decodes the references back to the characters.
func mdEscape(s string) string {
	var b strings.Builder
	inner := strings.TrimRight(strings.TrimLeft(s, " "), " ")
	lead := strings.Index(s, inner)
	if inner == "" {
		lead = len(s)
	}
	for i, r := range s {
		switch {
		case r == ' ' && (i < lead || i >= lead+len(inner)):
			b.WriteString("&#32;") // a table trims bare spaces at a cell's ends
		case r == '\n' || r == '\r':
			b.WriteByte(' ')
		case strings.ContainsRune(mdSpecial, r):
			fmt.Fprintf(&b, "&#%d;", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

const mdSpecial = "\\`*_[]<>&|~!$#"
