package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/agent-oracle/oracle/internal/artifact"
	"github.com/agent-oracle/oracle/internal/safetext"
	"github.com/agent-oracle/oracle/internal/spool"
	"github.com/agent-oracle/oracle/oracle/change"
	"github.com/agent-oracle/oracle/oracle/report"
)

// Colors paints parts of the text report. The zero value paints nothing;
// word diffs are then marked [-deleted-]{+inserted+}. Del and Ins paint the
// deleted and inserted words of a word diff (struck through and
// underlined on a terminal, so that they do not rely on colour alone);
// when nil, Bad and Good paint them.
type Colors struct {
	Good, Bad, Warn, Dim, Bold func(a ...any) string
	Del, Ins                   func(a ...any) string
}

func (c Colors) paint(f func(...any) string, s string) string {
	if f == nil {
		return s
	}
	return f(s)
}

func (c Colors) plain() bool { return c.Good == nil || c.Bad == nil }

// sign paints +, - or ~.
func (c Colors) sign(s string) string {
	switch s {
	case "+":
		return c.paint(c.Good, s)
	case "-":
		return c.paint(c.Bad, s)
	}
	return c.paint(c.Warn, s)
}

// safe is the one function through which the text report writes a string
// that came from outside the program (see safetext.String): values, names,
// labels, details, messages, errors, paths.
func safe(s string) string { return safetext.String(s) }

// Text writes the report for a terminal or a CI log: every case that needs
// attention (every case with o.All) with its semantic diff, then a summary
// line. Each changed case leads with its story (its verdict and reward
// old → new, the checks that moved, its new violations and tool errors),
// then its artifact diffs; a case whose change is the same as an earlier
// case's names that case instead. With o.MaxCases, the cases past the
// first o.MaxCases needing attention are counted, not listed. It returns
// the first error writing to w.
func Text(out io.Writer, r *report.Report, o Options) error {
	t := &textState{o: o}
	w := &errWriter{w: out}
	for _, cr := range r.Cases {
		t.add(w, cr)
	}
	if w.err != nil {
		return w.err
	}
	return t.summary(out, r)
}

// textState is what the text report keeps from case to case: how many it
// listed, which changes it showed, what it did not list.
type textState struct {
	o       Options
	listed  bool
	shown   int // cases needing attention listed
	same    sameChanges
	skipped unlisted
}

// add writes one case as Text lists it: nothing for an unchanged case
// unless o.All, nothing but a count past o.MaxCases. Errors writing to
// out are the caller's to find.
func (t *textState) add(out io.Writer, cr *report.Case) {
	if cr.Status == report.StatusUnchanged {
		if t.o.All || shows(cr) {
			writeCase(out, cr, t.o, nil)
			t.listed = true
		}
		return
	}
	g, dup := t.same.add(cr) // a case not listed still counts in its group
	if t.o.MaxCases > 0 && t.shown >= t.o.MaxCases {
		t.skipped.add(cr)
		return
	}
	t.shown++
	if !dup {
		if g != nil {
			g.shown = true
		}
		g = nil
	}
	writeCase(out, cr, t.o, g)
	t.listed = true
}

// summary writes what ends the text report of r, after its cases (r's own
// cases are not read, only its summary and shard): a blank line when a
// case was listed, the changes shared by several cases, the cases not
// listed, the summary line and the violations. It returns the first error
// writing to out.
func (t *textState) summary(out io.Writer, r *report.Report) error {
	w := &errWriter{w: out}
	c := t.o.Colors
	if t.listed || t.skipped.n > 0 {
		fmt.Fprintln(w)
	}
	textGate(w, r, t.o) // distribution.go
	for _, g := range t.same.shared() {
		fmt.Fprintf(w, "the same change in %d cases: %s (shown with the first)\n", len(g.cases), safe(names(g.cases, 5)))
	}
	if line := t.skipped.line(t.o); line != "" {
		fmt.Fprintln(w, c.paint(c.Warn, safe(line)))
	}
	fmt.Fprintln(w, safe(SummaryLine(r)))
	if v := r.Summary.Violations; v > 0 {
		fmt.Fprintln(w, c.paint(c.Bad, fmt.Sprintf("violations: %d %s with a confirmed forbidden effect", v, plural(v, "case", "cases"))))
	}
	if s := redactedSummary(r, t.o); s != "" {
		fmt.Fprintln(w, c.paint(c.Dim, safe(s)))
	}
	return w.err
}

// textWriter spools the cases the text report lists.
type textWriter struct {
	state textState
	spool *spool.Spool
	w     errWriter
}

func newTextWriter(o Options) Writer {
	t := &textWriter{state: textState{o: o}, spool: spool.New()}
	t.w.w = t.spool
	return t
}

func (t *textWriter) Case(cr *report.Case) error {
	t.state.add(&t.w, cr)
	return t.w.err
}

func (t *textWriter) Finish(w io.Writer, r *report.Report) error {
	cases, err := t.spool.Reader()
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, cases); err != nil {
		return err
	}
	return t.state.summary(w, r)
}

func (t *textWriter) Close() { t.spool.Close() }

// errWriter remembers the first error writing to w and writes nothing after
// it, so a renderer made of many Fprintf calls returns that error once.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

// writeCase writes one case's line, its story and its diff; a case whose
// change an earlier case showed (same) names that case instead.
func writeCase(w io.Writer, cr *report.Case, o Options, same *changeGroup) {
	c := o.Colors
	name := string(cr.Status)
	if !knownStatus(cr.Status) {
		name = "status " + safe(name) // one a merged report's reader let through
	}
	status := fmt.Sprintf("%-16s", name)
	switch cr.Status {
	case report.StatusUnchanged:
		status = c.paint(c.Good, status)
	case report.StatusError, report.StatusChanged, report.StatusNondeterministic:
		status = c.paint(c.Bad, status)
	default:
		status = c.paint(c.Warn, status)
	}
	note := ""
	if cr.Status != report.StatusNondeterministic {
		note = safe(withRedactedNote(caseNote(cr, o.Commands), cr))
	}
	if note != "" {
		if cr.Label != "" || cr.Status == report.StatusError {
			note = c.paint(c.Bad, note)
		} else {
			note = c.paint(c.Dim, note)
		}
		note = "  " + note
	}
	fmt.Fprintf(w, "%s %s%s\n", status, c.paint(c.Bold, safe(cr.Case)), note)
	if same != nil {
		fmt.Fprintf(w, "    the same change as %s\n", safe(same.cases[0]))
		return
	}
	writeStory(w, c, cr, "    ")
	for _, f := range cr.Files {
		writeFileDiff(w, f, "    ", o)
	}
	writeTextShown(w, cr, "    ", c)
	if cr.Divergence != nil {
		fmt.Fprintf(w, "    run %d differs from run 1:\n", cr.Divergence.Run)
		if cr.Divergence.Diff != nil {
			writeFileDiff(w, cr.Divergence.Diff, "    ", o)
		}
	}
}

// writeStory writes what a changed case says before its diffs: the checks
// that moved, the violations and the tool errors.
func writeStory(w io.Writer, c Colors, cr *report.Case, indent string) {
	if st := cr.Story; st != nil {
		if len(st.Checks) > 0 {
			fmt.Fprintf(w, "%schecks:\n", indent)
			for _, ch := range st.Checks {
				mark := c.paint(c.Bad, checkMark(ch))
				if ch.Now != nil && *ch.Now {
					mark = c.paint(c.Good, checkMark(ch))
				}
				fmt.Fprintf(w, "%s  %s %s\n", indent, mark, c.segs(checkSegs(ch)))
			}
		}
		if len(st.NewViolations) > 0 {
			fmt.Fprintf(w, "%snew violations: %d (confirmed forbidden effects)\n", indent, len(st.NewViolations))
			for _, v := range st.NewViolations {
				fmt.Fprintf(w, "%s  %s %s\n", indent, c.paint(c.Bad, "!"), safe(v))
			}
		}
		if len(st.GoneViolations) > 0 {
			fmt.Fprintf(w, "%sviolations gone: %s\n", indent, safe(strings.Join(st.GoneViolations, ", ")))
		}
	}
	writeToolErrors(w, c, cr, indent)
}

func writeToolErrors(w io.Writer, c Colors, cr *report.Case, indent string) {
	if len(cr.NewToolErrors) > 0 {
		fmt.Fprintf(w, "%snew tool errors: %d (calls.json against the baseline's)\n", indent, len(cr.NewToolErrors))
		for _, te := range cr.NewToolErrors {
			fmt.Fprintf(w, "%s  %s %s: %s %s\n", indent, c.paint(c.Bad, "!"), safe(callName(te)), c.paint(c.Bad, safe(te.Code)), safe(te.Message))
		}
	}
	if len(cr.GoneToolErrors) > 0 {
		fmt.Fprintf(w, "%stool errors gone: %s\n", indent, safe(goneList(cr.GoneToolErrors)))
	}
	if len(cr.ToolErrors) > 0 {
		fmt.Fprintf(w, "%stool errors of this run: %d (the baseline's run had %d; %s)\n", indent, len(cr.ToolErrors), cr.OldToolErrors, noCallsNote)
		for _, te := range cr.ToolErrors {
			fmt.Fprintf(w, "%s  %s %s: %s %s\n", indent, c.paint(c.Bad, "!"), safe(callName(te)), c.paint(c.Bad, safe(te.Code)), safe(te.Message))
		}
	}
}

// noCallsNote says why all the tool errors of a run are listed.
const noCallsNote = "no calls.json is compared for this case, so which are new is not known"

// callName names a tool error's call: "#5 reassign_opportunity", or the
// tool alone when the number is not known.
func callName(te change.FailedCall) string {
	if te.Call == 0 {
		return te.Tool
	}
	return fmt.Sprintf("#%d %s", te.Call, te.Tool)
}

// goneList is the errors that disappeared on one line:
// "#3 create_ticket (invalid_input), #5 get_ticket (not_found)".
func goneList(tes []change.FailedCall) string {
	parts := make([]string, len(tes))
	for i, te := range tes {
		parts[i] = callName(te)
		if te.Code != "" {
			parts[i] += " (" + te.Code + ")"
		}
	}
	return strings.Join(parts, ", ")
}

// segs writes segments, each one's text through safe: on a plain
// terminal the deleted and inserted words marked [-…-] and {+…+}, on a
// coloured one painted (and struck through or underlined by Del and Ins).
func (c Colors) segs(ss []seg) string {
	var b strings.Builder
	for _, s := range ss {
		text := safe(s.text)
		switch s.op {
		case deleted:
			switch {
			case c.plain():
				b.WriteString("[-" + text + "-]")
			case c.Del != nil:
				b.WriteString(c.Del(text))
			default:
				b.WriteString(c.paint(c.Bad, text))
			}
		case inserted:
			switch {
			case c.plain():
				b.WriteString("{+" + text + "+}")
			case c.Ins != nil:
				b.WriteString(c.Ins(text))
			default:
				b.WriteString(c.paint(c.Good, text))
			}
		case oldValue:
			b.WriteString(c.paint(c.Bad, text))
		case newValue:
			b.WriteString(c.paint(c.Good, text))
		case elided:
			b.WriteString(c.paint(c.Dim, text))
		default:
			b.WriteString(text)
		}
	}
	return b.String()
}

// knownStatus reports whether s is a status oracle writes.
func knownStatus(s report.Status) bool {
	switch s {
	case report.StatusUnchanged, report.StatusChanged, report.StatusMissing, report.StatusObsolete, report.StatusNondeterministic, report.StatusError:
		return true
	}
	return false
}

// knownFiles are the file names a report shows as they are at the start
// of a line: the artifacts' own names.
var knownFiles = []string{artifact.Result, artifact.StateDiff, artifact.Calls, artifact.Run, artifact.Trace}

// fileHeading is a file's name as the line that heads its diff writes it:
// an artifact's name as it is, any other path (a path given to oracle
// diff, a name read from a merged report) after "./", so that no name from
// outside starts a line.
func fileHeading(name string) string {
	for _, k := range knownFiles {
		if name == k {
			return name
		}
	}
	return "./" + safe(name)
}

// memberSign is the sign of a state-diff member's line: + now in a list
// of the state diff, - no longer in one, ~ in another or the same list.
func memberSign(m change.MemberDiff) string {
	switch {
	case m.Was == "":
		return "+"
	case m.Now == "":
		return "-"
	}
	return "~"
}

func writeFileDiff(w io.Writer, f *change.FileDiff, indent string, o Options) {
	c, maxValue := o.Colors, o.MaxValue
	fmt.Fprintf(w, "%s%s", indent, c.paint(c.Bold, fileHeading(f.File)))
	if note := stateNote(f.State, o.program()); note != "" {
		fmt.Fprint(w, " ("+safe(note)+")")
	}
	if f.State == change.FileUnreadable {
		fmt.Fprint(w, ": "+safe(f.Error))
	}
	fmt.Fprintln(w)
	changes := f.Changes
	if !o.Verbose {
		changes = f.Unfolded()
	}
	for _, ch := range changes {
		sign := c.sign(signOf(ch.Op))
		label := ""
		if ch.Label != "" {
			label = ` (check "` + safe(ch.Label) + `")`
		}
		fmt.Fprintf(w, "%s  %s %s%s: %s\n", indent, sign, safe(pathOf(ch)), label, c.segs(changeSegs(ch, maxValue)))
	}
	if folded := f.Folded(); len(folded) > 0 && !o.Verbose {
		fmt.Fprintf(w, "%s  %s\n", indent, c.paint(c.Dim, "("+safe(foldedNote(folded, o.Commands.Unfold))+")"))
	}
	for _, m := range f.Members {
		fmt.Fprintf(w, "%s  %s %s: %s\n", indent, c.sign(memberSign(m)), c.paint(c.Bold, safe(m.Name())), safe(m.What()))
		sub := indent + "    "
		for _, fd := range m.Fields {
			sign, note := c.paint(c.Warn, "~"), ""
			switch {
			case fd.Was == nil:
				sign = c.paint(c.Good, "+")
				if m.Was != "" {
					note = " (" + fd.What() + ")"
				}
			case fd.Now == nil:
				sign = c.paint(c.Bad, "-")
				if m.Now != "" {
					note = " (" + fd.What() + ")"
				}
			}
			path := safe(fd.Path)
			if path != "" {
				path += ": "
			}
			fmt.Fprintf(w, "%s%s %s%s%s\n", sub, sign, path, c.segs(fieldDiffSegs(fd, maxValue)), c.paint(c.Dim, note))
		}
		if m.OldValue != nil {
			fmt.Fprintf(w, "%s%s %s\n", sub, c.paint(c.Bad, "-"), c.segs([]seg{valueSeg(oldValue, m.OldValue, maxValue)}))
		}
		if m.NewValue != nil {
			fmt.Fprintf(w, "%s%s %s\n", sub, c.paint(c.Good, "+"), c.segs([]seg{valueSeg(newValue, m.NewValue, maxValue)}))
		}
		for _, ch := range m.Value {
			fmt.Fprintf(w, "%s%s %s: %s\n", sub, c.sign(signOf(ch.Op)), safe(pathOf(ch)), c.segs(changeSegs(ch, maxValue)))
		}
	}
	for _, inv := range f.Invisible {
		fmt.Fprintf(w, "%s  %s %s\n", indent, c.paint(c.Warn, "!"), "invisible difference: "+safe(inv.String()))
	}
	writeTextRedactions(w, f, indent, c)
}

// foldedNote names the folded changes of a file on one line, and the
// command that lists them.
func foldedNote(folded []change.Change, unfold string) string {
	paths := make([]string, len(folded))
	for i, ch := range folded {
		paths[i] = ch.Path
	}
	note := "said above: " + strings.Join(paths, ", ")
	if unfold != "" {
		note += "; " + unfold + " lists them"
	}
	return note
}

// PathDiffs writes the result of change.DiffPaths as text. It returns the
// first error writing to w.
func PathDiffs(out io.Writer, diffs []change.PathDiff, c Colors) error {
	w := &errWriter{w: out}
	for _, d := range diffs {
		f := *d.Diff
		f.File = d.Path
		writeFileDiff(w, &f, "", Options{Colors: c, Verbose: true})
	}
	if len(diffs) == 0 {
		fmt.Fprintln(w, "no difference")
		return w.err
	}
	fmt.Fprintf(w, "\n%d %s\n", len(diffs), plural(len(diffs), "file differs", "files differ"))
	return w.err
}
