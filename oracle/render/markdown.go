package render

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/agent-oracle/oracle/internal/safetext"
	"github.com/agent-oracle/oracle/oracle/change"
	"github.com/agent-oracle/oracle/oracle/report"
)

// The bounds of the Markdown report. GitHub takes 65,536 characters in a
// pull-request comment and 1 MiB in a job summary: the report stays under
// both whatever the change.
const (
	// DefaultMarkdownCases is how many cases needing attention the
	// Markdown report lists in full when Options.MaxCases is 0.
	DefaultMarkdownCases = 30
	// MarkdownBudget bounds, in bytes, the cases the Markdown report
	// lists (their rows and sections); the rest are counted. The headline
	// and the count add less than a kilobyte.
	MarkdownBudget = 60_000
	// mdMaxText bounds the characters of one value shown in a cell.
	mdMaxText = 500
	// mdMaxRows bounds the rows of one table of a case's section.
	mdMaxRows = 100
	// mdStoryChecks bounds the checks the case table's note names.
	mdStoryChecks = 5
	// mdGroupNames bounds the cases named for a change several share,
	// each cut to mdGroupName characters; mdGroupLine is what their line
	// takes besides the names (the counts' digits included).
	mdGroupNames = 4
	mdGroupName  = 80
	mdGroupLine  = 80
)

// Markdown writes the report as a pull-request comment or a CI job summary
// (GitHub-flavoured Markdown): a headline, a table of the cases that need
// attention (each changed case's note says its story: the verdict and
// reward old → new, the checks that moved and why, its new tool errors),
// then each case's story and semantic diff in a collapsible section, the
// changes its headline says folded in a section of their own. A change
// several cases share is shown once, with the cases named. The first
// o.MaxCases cases (DefaultMarkdownCases when 0) that fit in
// MarkdownBudget bytes are listed; the rest are counted, with where to
// find them, and a table is never cut.
//
// Values are never altered: every value, path and note is written as HTML
// text with each punctuation mark Markdown could read as a character
// reference, so no backtick, pipe, ampersand or asterisk in a value can end
// a code span, split a table cell or start emphasis, and the rendered text
// is the value; what safetext escapes is shown escaped, and a word joiner
// (U+2060) after each @, in :// and www. and after a # before a digit keeps
// a mention, a URL, an e-mail address or an issue reference from becoming a
// link. The notes of cases suggest o.Commands.
func Markdown(out io.Writer, r *report.Report, o Options) error {
	m := &markdownWriter{o: o}
	for _, c := range r.Cases {
		if err := m.Case(c); err != nil {
			return err
		}
	}
	return m.Finish(out, r)
}

// markdownWriter keeps what the Markdown report lists: the rows and
// sections of the first cases that need attention, within the bounds, and
// the count of the others.
type markdownWriter struct {
	o       Options
	rows    []string
	cases   []*mdSection
	size    int
	full    bool // a case did not fit: the later ones are counted
	same    sameChanges
	secs    map[*changeGroup]*mdSection
	skipped unlisted
}

// mdSection is a listed case's collapsible section.
type mdSection struct {
	summary, body string
	group         *changeGroup // the cases that share its change, for a changed case
	named         []string     // the cases its line names, charged to the budget
}

func newMarkdownWriter(o Options) Writer { return &markdownWriter{o: o} }

func (m *markdownWriter) maxCases() int {
	if m.o.MaxCases > 0 {
		return m.o.MaxCases
	}
	return DefaultMarkdownCases
}

func (m *markdownWriter) Case(c *report.Case) error {
	if c.Status == report.StatusUnchanged {
		return nil
	}
	g, dup := m.same.add(c)
	if len(m.rows) >= m.maxCases() {
		m.full = true
	}
	if sec := m.secs[g]; dup && sec != nil && len(sec.named) < mdGroupNames {
		// the section of the change names this case too, when it fits
		name := mdCode(cut(c.Case, mdGroupName)) + ", "
		if !m.take(c, len(name)) {
			return nil
		}
		sec.named = append(sec.named, name)
	}
	if dup {
		row := mdRow(c, "the same change as "+mdCode(g.cases[0]))
		if m.take(c, len(row)) {
			m.rows = append(m.rows, row)
		}
		return nil
	}
	row := mdRow(c, mdNote(c, m.o))
	sec := mdCaseSection(c, m.o, false)
	if m.size+len(row)+sec.size() > MarkdownBudget {
		sec = mdCaseSection(c, m.o, true)
	}
	if !m.take(c, len(row)+sec.size()) {
		return nil
	}
	m.rows = append(m.rows, row)
	if sec != nil {
		m.cases = append(m.cases, sec)
		if g != nil {
			if m.secs == nil {
				m.secs = map[*changeGroup]*mdSection{}
			}
			sec.group, g.shown, m.secs[g] = g, true, sec
		}
	}
	return nil
}

// take charges n bytes of the budget for the case c and reports whether
// they fit; once a case does not fit (or the report is full), it and every
// later case are counted instead of listed.
func (m *markdownWriter) take(c *report.Case, n int) bool {
	if m.full || m.size+n > MarkdownBudget {
		m.full = true
		m.skipped.add(c)
		return false
	}
	m.size += n
	return true
}

// size is what the section takes of the budget, the line naming the
// cases that share its change included.
func (s *mdSection) size() int {
	if s == nil {
		return 0
	}
	return len(s.summary) + len(s.body) + 40 + mdGroupLine + len(mdCode(cut(s.summary, mdGroupName)))
}

func (m *markdownWriter) Finish(out io.Writer, r *report.Report) error {
	w := &errWriter{w: out}
	icon := "✅"
	switch s := r.Summary; {
	case s.Error > 0:
		icon = "⚠️"
	case s.Unchanged < s.Total:
		icon = "❌"
	}
	fmt.Fprintf(w, "### %s %s check\n\n%s\n\n", icon, mdText(m.o.program()), mdText(SummaryLine(r)))
	if v := r.Summary.Violations; v > 0 {
		fmt.Fprintf(w, "**Violations:** %d %s with a confirmed forbidden effect.\n\n", v, plural(v, "case", "cases"))
	}
	if s := redactedSummary(r, m.o); s != "" {
		fmt.Fprintf(w, "%s\n\n", mdText(s))
	}
	markdownGate(w, r) // distribution.go
	if len(m.rows) == 0 && m.skipped.n == 0 {
		return w.err
	}
	if len(m.rows) > 0 {
		fmt.Fprintln(w, "| case | status | note |")
		fmt.Fprintln(w, "| --- | --- | --- |")
		for _, row := range m.rows {
			fmt.Fprint(w, row)
		}
	}
	if line := m.skipped.line(m.o); line != "" {
		fmt.Fprintf(w, "\n**%s**\n", mdText(line))
	}
	for _, sec := range m.cases {
		fmt.Fprintf(w, "\n<details><summary>%s</summary>\n\n", sec.summary)
		if g := sec.group; g != nil && len(g.cases) > 1 {
			names := mdCode(cut(g.cases[0], mdGroupName)) + ", " + strings.Join(sec.named, "")
			names = strings.TrimSuffix(names, ", ")
			if more := len(g.cases) - 1 - len(sec.named); more > 0 {
				names += fmt.Sprintf(" and %d more", more)
			}
			fmt.Fprintf(w, "The same change in %d cases: %s.\n\n", len(g.cases), names)
		}
		fmt.Fprint(w, sec.body)
		fmt.Fprintln(w, "</details>")
	}
	return w.err
}

func (m *markdownWriter) Close() {}

// mdRow is a case's row of the table.
func mdRow(c *report.Case, note string) string {
	return fmt.Sprintf("| %s | %s | %s |\n", mdCode(c.Case), mdText(string(c.Status)), note)
}

// mdNote is the note cell of a case: its headline, bold for a
// regression or an improvement, then its story in short.
func mdNote(c *report.Case, o Options) string {
	note := mdText(withRedactedNote(caseNote(c, o.Commands), c))
	if c.Label != "" {
		note = "<b>" + note + "</b>"
	}
	var lines []string
	if st := c.Story; st != nil {
		for i, ch := range st.Checks {
			if i == mdStoryChecks {
				lines = append(lines, fmt.Sprintf("and %d more checks", len(st.Checks)-i))
				break
			}
			lines = append(lines, checkMark(ch)+" check "+mdCheckSegs(ch))
		}
		if n := len(st.NewViolations); n > 0 {
			lines = append(lines, fmt.Sprintf("new violations: %d", n))
		}
	}
	switch n := len(c.NewToolErrors); {
	case n > 0:
		lines = append(lines, fmt.Sprintf("new tool errors: %d", n))
	case len(c.ToolErrors) > 0:
		lines = append(lines, fmt.Sprintf("tool errors of this run: %d", len(c.ToolErrors)))
	}
	if len(lines) == 0 {
		return note
	}
	return note + "<br>" + strings.Join(lines, "<br>")
}

// mdCheckSegs renders a story's check in one cell: its label, kind and
// outcome, and its detail with the deleted and inserted words marked.
func mdCheckSegs(ch change.CheckChange) string {
	ss := checkSegs(ch)
	var b strings.Builder
	b.WriteString(mdText(ss[0].text))
	if len(ss) > 2 { // "; " and the detail
		b.WriteString("; " + mdBoth(ss[2:]))
	}
	return b.String()
}

// mdCaseSection is the collapsible section of a case, nil when it has
// nothing to show; compact leaves out the artifact diffs (the section of
// a case too large for what is left of the budget).
func mdCaseSection(c *report.Case, o Options, compact bool) *mdSection {
	files := filesOf(c)
	if len(files) == 0 && c.Story.Empty() && len(c.ToolErrors) == 0 && len(c.NewToolErrors) == 0 && len(c.GoneToolErrors) == 0 {
		return nil
	}
	var b bytes.Buffer
	w := &b
	if st := c.Story; st != nil {
		if len(st.Checks) > 0 {
			fmt.Fprint(w, "**Checks that moved**\n\n")
			fmt.Fprintln(w, "| check | kind | baseline | now | detail |")
			fmt.Fprintln(w, "| --- | --- | --- | --- | --- |")
			for i, ch := range st.Checks {
				if i == mdMaxRows || compact && i == mdStoryChecks {
					fmt.Fprintf(w, "| … | | | | %d more checks |\n", len(st.Checks)-i)
					break
				}
				detail := ""
				if segs := checkSegs(ch); len(segs) > 2 {
					detail = mdBoth(segs[2:])
				}
				kind := ch.Kind
				if ch.OldKind != "" {
					kind = ch.OldKind + " → " + ch.Kind
				}
				fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", mdText(ch.Label), mdText(kind), passedWord(ch.Was), passedWord(ch.Now), detail)
			}
			fmt.Fprintln(w)
		}
		if len(st.NewViolations) > 0 {
			fmt.Fprintf(w, "**New violations:** %s\n\n", mdText(strings.Join(st.NewViolations, "; ")))
		}
		if len(st.GoneViolations) > 0 {
			fmt.Fprintf(w, "**Violations gone:** %s\n\n", mdText(strings.Join(st.GoneViolations, "; ")))
		}
	}
	if len(c.NewToolErrors) > 0 {
		fmt.Fprintf(w, "**New tool errors:** %d (calls.json against the baseline's)\n\n", len(c.NewToolErrors))
		writeMarkdownToolErrors(w, c.NewToolErrors, compact)
	}
	if len(c.GoneToolErrors) > 0 {
		fmt.Fprintf(w, "**Tool errors gone:** %s\n\n", mdText(goneList(c.GoneToolErrors)))
	}
	if len(c.ToolErrors) > 0 {
		fmt.Fprintf(w, "**Tool errors of this run:** %d (the baseline's run had %d; %s)\n\n", len(c.ToolErrors), c.OldToolErrors, mdText(noCallsNote))
		writeMarkdownToolErrors(w, c.ToolErrors, compact)
	}
	if compact {
		names := make([]string, len(files))
		for i, f := range files {
			names[i] = mdCode(f.File)
		}
		if len(names) > 0 {
			fmt.Fprintf(w, "Its diff (%s) is too large for this summary; %s.\n\n", strings.Join(names, ", "), mdText(o.elsewhere()))
		}
	} else {
		for _, f := range files {
			writeMarkdownFile(w, f, o.program())
		}
	}
	return &mdSection{summary: mdCode(c.Case) + " " + mdText(string(c.Status)), body: b.String()}
}

// passedWord says whether a check passed, — when it is not there.
func passedWord(b *bool) string {
	switch {
	case b == nil:
		return "—"
	case *b:
		return "passed"
	}
	return "failed"
}

func writeMarkdownToolErrors(w io.Writer, tes []change.FailedCall, compact bool) {
	fmt.Fprintln(w, "| call | tool | code | message |")
	fmt.Fprintln(w, "| --- | --- | --- | --- |")
	for i, te := range tes {
		if compact && i == mdStoryChecks {
			fmt.Fprintf(w, "| … | | | %d more |\n", len(tes)-i)
			break
		}
		call := ""
		if te.Call > 0 {
			call = fmt.Sprintf("#%d", te.Call)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", mdText(call), mdCode(te.Tool), mdCode(te.Code), mdText(cut(te.Message, mdMaxText)))
	}
	fmt.Fprintln(w)
}

func writeMarkdownFile(w io.Writer, f *change.FileDiff, program string) {
	fmt.Fprintf(w, "**%s**", mdText(f.File))
	if note := stateNote(f.State, program); note != "" {
		fmt.Fprint(w, " ("+mdText(note)+")")
	}
	if f.Error != "" {
		fmt.Fprintf(w, ": %s", mdText(f.Error))
	}
	fmt.Fprint(w, "\n\n")
	if changes := f.Unfolded(); len(changes) > 0 {
		writeMarkdownChanges(w, changes)
	}
	if folded := f.Folded(); len(folded) > 0 {
		fmt.Fprintf(w, "<details><summary>%d %s of %s in the headline</summary>\n\n", len(folded), plural(len(folded), "change", "changes"), mdText(f.File))
		writeMarkdownChanges(w, folded)
		fmt.Fprint(w, "</details>\n\n")
	}
	if len(f.Members) > 0 {
		fmt.Fprintln(w, "| member | how | path | baseline | now |")
		fmt.Fprintln(w, "| --- | --- | --- | --- | --- |")
		rows := 0
		more := func() bool {
			rows++
			return rows > mdMaxRows
		}
	members:
		for i, m := range f.Members {
			name := mdCode(m.Name())
			for _, fd := range m.Fields {
				if more() {
					fmt.Fprintf(w, "| … | %d more members from here |  |  |  |\n", len(f.Members)-i)
					break members
				}
				old, fresh := fieldSides(fd)
				fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", name, mdText(m.What()+": "+fd.What()), mdCode(fd.Path), old, fresh)
			}
			if m.OldValue != nil || m.NewValue != nil {
				if more() {
					fmt.Fprintf(w, "| … | %d more members from here |  |  |  |\n", len(f.Members)-i)
					break members
				}
				fmt.Fprintf(w, "| %s | %s |  | %s | %s |\n", name, mdText(m.What()), mdValue(m.OldValue, oldValue), mdValue(m.NewValue, newValue))
			}
			for _, ch := range m.Value {
				if more() {
					fmt.Fprintf(w, "| … | %d more members from here |  |  |  |\n", len(f.Members)-i)
					break members
				}
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

// writeMarkdownChanges writes a table of changes, at most mdMaxRows rows
// and a last one that counts the others.
func writeMarkdownChanges(w io.Writer, changes []change.Change) {
	fmt.Fprintln(w, "| op | path | check | old | new |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- |")
	for i, ch := range changes {
		if i == mdMaxRows {
			fmt.Fprintf(w, "| … | %d more changes |  |  |  |\n", len(changes)-i)
			break
		}
		old, fresh := changeSides(ch)
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", mdText(string(ch.Op)), mdPath(ch), mdText(ch.Label), old, fresh)
	}
	fmt.Fprintln(w)
}

// changeSides renders a change's old and new cells; a word diff marks the
// deleted words in the old cell and the inserted ones in the new.
func changeSides(ch change.Change) (string, string) {
	if ch.Words != nil {
		ss := wordSegs(ch.Words)
		return mdSegs(ss, false), mdSegs(ss, true)
	}
	return mdValue(ch.From, oldValue), mdValue(ch.To, newValue)
}

// fieldSides renders a state-diff field's baseline and fresh cells. When
// both sides change the field the same way, the values they agree on are
// plain and the words that differ are marked (<del> in the baseline's cell,
// <ins> in the fresh one), long strings with a window of context around
// each change, as in the text and HTML reports.
func fieldSides(fd change.FieldDiff) (old, fresh string) {
	if fd.Was != nil && fd.Now != nil && fd.Was.Op == fd.Now.Op {
		ss := fieldDiffSegs(fd, 0)
		return mdSegs(ss, false), mdSegs(ss, true)
	}
	if fd.Was != nil {
		old = mdSegs(fieldSegs(fd.Was, 0), false)
	}
	if fd.Now != nil {
		fresh = mdSegs(fieldSegs(fd.Now, 0), true)
	}
	return old, fresh
}

func mdPath(ch change.Change) string {
	if ch.WholeDocument() {
		return mdText(wholeDocument)
	}
	return mdCode(ch.Location())
}

func mdValue(v []byte, op segOp) string {
	if v == nil {
		return ""
	}
	return mdSegs([]seg{valueSeg(op, v, 0)}, op == newValue)
}

// mdSegs renders one side of segments as code: the new side's inserted
// words in <ins>, the old side's deleted words in <del>, each piece at
// most mdMaxText characters.
func mdSegs(ss []seg, newSide bool) string {
	var b strings.Builder
	b.WriteString("<code>")
	for _, s := range ss {
		text := mdEscape(cut(s.text, mdMaxText))
		switch {
		case s.op == deleted && !newSide:
			b.WriteString("<del>" + text + "</del>")
		case s.op == inserted && newSide:
			b.WriteString("<ins>" + text + "</ins>")
		case s.op == deleted || s.op == inserted:
		default:
			b.WriteString(text)
		}
	}
	b.WriteString("</code>")
	return b.String()
}

// mdBoth renders segments in one cell: the deleted words in <del> and the
// inserted ones in <ins>.
func mdBoth(ss []seg) string {
	var b strings.Builder
	b.WriteString("<code>")
	for _, s := range ss {
		text := mdEscape(cut(s.text, mdMaxText))
		switch s.op {
		case deleted, oldValue:
			b.WriteString("<del>" + text + "</del>")
		case inserted, newValue:
			b.WriteString("<ins>" + text + "</ins>")
		default:
			b.WriteString(text)
		}
	}
	b.WriteString("</code>")
	return b.String()
}

// cut shortens s to n characters and an ellipsis.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
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

// mdEscape writes s as text that Markdown shows as it is: what safetext
// escapes is escaped first (so that no control character, bidirectional
// control or invisible character reaches the page, and no line break
// splits a cell), the ASCII punctuation marks that inline Markdown, HTML,
// a table or GitHub's math could read as syntax, and the spaces at its
// ends, are written as character references (CommonMark decodes them back
// to the characters), and a word joiner (&#8288;) is put after each @, in
// each :// and www. and after a # before a digit, so that no mention,
// e-mail address, URL or issue reference becomes a link or a notification.
func mdEscape(s string) string {
	s = safetext.String(s)
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
		case r == '@':
			b.WriteString("@" + wordJoiner)
		case r == ':' && strings.HasPrefix(s[i:], "://"):
			b.WriteString(":" + wordJoiner)
		case (r == '.') && i >= 3 && strings.EqualFold(s[i-3:i], "www"):
			b.WriteString(wordJoiner + ".")
		case r == '#' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			b.WriteString("&#35;" + wordJoiner)
		case strings.ContainsRune(mdSpecial, r):
			fmt.Fprintf(&b, "&#%d;", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// wordJoiner is U+2060 WORD JOINER as a character reference: invisible,
// it keeps GitHub from reading what it separates as a mention or a link.
const wordJoiner = "&#8288;"

const mdSpecial = "\\`*_[]<>&|~!$#"
