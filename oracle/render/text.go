package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/agent-oracle/oracle/internal/spool"
	"github.com/agent-oracle/oracle/oracle"
)

// Colors paints parts of the text report. The zero value paints nothing;
// word diffs are then marked [-deleted-]{+inserted+}.
type Colors struct {
	Good, Bad, Warn, Dim, Bold func(a ...any) string
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

// Text writes the report for a terminal or a CI log: every case that needs
// attention (every case with o.All) with its semantic diff, then a summary
// line. It returns the first error writing to w.
func Text(out io.Writer, r *oracle.Report, o Options) error {
	w := &errWriter{w: out}
	listed := false
	for _, cr := range r.Cases {
		listed = textCase(w, cr, o) || listed
	}
	if err := textSummary(w, r, o, listed); err != nil {
		return err
	}
	return w.err
}

// textCase writes one case as Text lists it: nothing for an unchanged case
// unless o.All. It reports whether it listed the case; errors writing to
// out are the caller's to find.
func textCase(out io.Writer, cr *oracle.CaseReport, o Options) bool {
	if cr.Status == oracle.StatusUnchanged && !o.All && !shows(cr) {
		return false
	}
	writeCase(out, cr, o)
	return true
}

// textSummary writes what ends the text report of r, after its cases (r's
// own cases are not read, only its summary and shard): a blank line when
// a case was listed, the summary line and the violations. It returns the
// first error writing to out.
func textSummary(out io.Writer, r *oracle.Report, o Options, listed bool) error {
	w := &errWriter{w: out}
	c := o.Colors
	if listed {
		fmt.Fprintln(w)
	}
	textGate(w, r, o) // distribution.go
	fmt.Fprintln(w, SummaryLine(r))
	if v := r.Summary.Violations; v > 0 {
		fmt.Fprintln(w, c.paint(c.Bad, fmt.Sprintf("violations: %d %s with a confirmed forbidden effect", v, plural(v, "case", "cases"))))
	}
	if s := redactedSummary(r, o); s != "" {
		fmt.Fprintln(w, c.paint(c.Dim, s))
	}
	return w.err
}

// textWriter spools the cases the text report lists.
type textWriter struct {
	o      Options
	spool  *spool.Spool
	w      errWriter
	listed bool
}

func newTextWriter(o Options) Writer {
	t := &textWriter{o: o, spool: spool.New()}
	t.w.w = t.spool
	return t
}

func (t *textWriter) Case(cr *oracle.CaseReport) error {
	t.listed = textCase(&t.w, cr, t.o) || t.listed
	return t.w.err
}

func (t *textWriter) Finish(w io.Writer, r *oracle.Report) error {
	cases, err := t.spool.Reader()
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, cases); err != nil {
		return err
	}
	return textSummary(w, r, t.o, t.listed)
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

// writeCase writes one case's line and its diff.
func writeCase(w io.Writer, cr *oracle.CaseReport, o Options) {
	c := o.Colors
	status := fmt.Sprintf("%-16s", cr.Status)
	switch cr.Status {
	case oracle.StatusUnchanged:
		status = c.paint(c.Good, status)
	case oracle.StatusError, oracle.StatusChanged, oracle.StatusNondeterministic:
		status = c.paint(c.Bad, status)
	default:
		status = c.paint(c.Warn, status)
	}
	note := ""
	if cr.Status != oracle.StatusNondeterministic {
		note = withRedactedNote(caseNote(cr, o.Commands), cr)
	}
	if note != "" {
		if cr.Label != "" || cr.Status == oracle.StatusError {
			note = c.paint(c.Bad, note)
		} else {
			note = c.paint(c.Dim, note)
		}
		note = "  " + note
	}
	fmt.Fprintf(w, "%s %s%s\n", status, c.paint(c.Bold, cr.Case), note)
	for _, f := range cr.Files {
		writeFileDiff(w, f, "    ", o)
	}
	writeTextShown(w, cr, "    ", c)
	if cr.Divergence != nil {
		fmt.Fprintf(w, "    run %d differs from run 1:\n", cr.Divergence.Run)
		writeFileDiff(w, cr.Divergence.Diff, "    ", o)
	}
	writeToolErrors(w, c, cr, "    ")
}

func writeToolErrors(w io.Writer, c Colors, cr *oracle.CaseReport, indent string) {
	if len(cr.NewToolErrors) > 0 {
		fmt.Fprintf(w, "%snew tool errors: %d (calls.json against the baseline's)\n", indent, len(cr.NewToolErrors))
		for _, te := range cr.NewToolErrors {
			fmt.Fprintf(w, "%s  %s %s: %s %s\n", indent, c.paint(c.Bad, "!"), callName(te), c.paint(c.Bad, te.Code), te.Message)
		}
	}
	if len(cr.GoneToolErrors) > 0 {
		fmt.Fprintf(w, "%stool errors gone: %s\n", indent, goneList(cr.GoneToolErrors))
	}
	if len(cr.ToolErrors) > 0 {
		fmt.Fprintf(w, "%stool errors of this run: %d (the baseline's run had %d; %s)\n", indent, len(cr.ToolErrors), cr.OldToolErrors, noCallsNote)
		for _, te := range cr.ToolErrors {
			fmt.Fprintf(w, "%s  %s %s: %s %s\n", indent, c.paint(c.Bad, "!"), callName(te), c.paint(c.Bad, te.Code), te.Message)
		}
	}
}

// noCallsNote says why all the tool errors of a run are listed.
const noCallsNote = "no calls.json is compared for this case, so which are new is not known"

// callName names a tool error's call: "#5 reassign_opportunity", or the
// tool alone when the number is not known.
func callName(te oracle.ToolError) string {
	if te.Call == 0 {
		return te.Tool
	}
	return fmt.Sprintf("#%d %s", te.Call, te.Tool)
}

// goneList is the errors that disappeared on one line:
// "#3 create_ticket (invalid_input), #5 get_ticket (not_found)".
func goneList(tes []oracle.ToolError) string {
	parts := make([]string, len(tes))
	for i, te := range tes {
		parts[i] = callName(te)
		if te.Code != "" {
			parts[i] += " (" + te.Code + ")"
		}
	}
	return strings.Join(parts, ", ")
}

func (c Colors) segs(ss []seg) string {
	var b strings.Builder
	for _, s := range ss {
		switch s.op {
		case deleted:
			if c.plain() {
				b.WriteString("[-" + s.text + "-]")
			} else {
				b.WriteString(c.paint(c.Bad, s.text))
			}
		case inserted:
			if c.plain() {
				b.WriteString("{+" + s.text + "+}")
			} else {
				b.WriteString(c.paint(c.Good, s.text))
			}
		case oldValue:
			b.WriteString(c.paint(c.Bad, s.text))
		case newValue:
			b.WriteString(c.paint(c.Good, s.text))
		case elided:
			b.WriteString(c.paint(c.Dim, s.text))
		default:
			b.WriteString(s.text)
		}
	}
	return b.String()
}

func writeFileDiff(w io.Writer, f *oracle.FileDiff, indent string, o Options) {
	c, maxValue := o.Colors, o.MaxValue
	fmt.Fprintf(w, "%s%s", indent, c.paint(c.Bold, f.File))
	if note := stateNote(f.State, o.program()); note != "" {
		fmt.Fprint(w, " ("+note+")")
	}
	if f.State == oracle.FileUnreadable {
		fmt.Fprint(w, ": "+f.Error)
	}
	fmt.Fprintln(w)
	for _, ch := range f.Changes {
		sign := c.sign(signOf(ch.Op))
		label := ""
		if ch.Label != "" {
			label = fmt.Sprintf(" (check %q)", ch.Label)
		}
		fmt.Fprintf(w, "%s  %s %s%s: %s\n", indent, sign, pathOf(ch), label, c.segs(changeSegs(ch, maxValue)))
	}
	for _, m := range f.Members {
		fmt.Fprintf(w, "%s  %s: %s\n", indent, c.paint(c.Bold, m.Name()), m.What())
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
			path := fd.Path
			if path != "" {
				path += ": "
			}
			fmt.Fprintf(w, "%s%s %s%s%s\n", sub, sign, path, c.segs(fieldDiffSegs(fd, maxValue)), c.paint(c.Dim, note))
		}
		if m.OldValue != nil {
			fmt.Fprintf(w, "%s%s %s\n", sub, c.paint(c.Bad, "-"), c.paint(c.Bad, clip(m.OldValue, maxValue)))
		}
		if m.NewValue != nil {
			fmt.Fprintf(w, "%s%s %s\n", sub, c.paint(c.Good, "+"), c.paint(c.Good, clip(m.NewValue, maxValue)))
		}
		for _, ch := range m.Value {
			fmt.Fprintf(w, "%s%s %s: %s\n", sub, c.sign(signOf(ch.Op)), pathOf(ch), c.segs(changeSegs(ch, maxValue)))
		}
	}
	for _, inv := range f.Invisible {
		fmt.Fprintf(w, "%s  %s %s\n", indent, c.paint(c.Warn, "!"), "invisible difference: "+inv.String())
	}
	writeTextRedactions(w, f, indent, c)
}

// PathDiffs writes the result of oracle.DiffPaths as text. It returns the
// first error writing to w.
func PathDiffs(out io.Writer, diffs []oracle.PathDiff, c Colors) error {
	w := &errWriter{w: out}
	for _, d := range diffs {
		f := *d.Diff
		f.File = d.Path
		writeFileDiff(w, &f, "", Options{Colors: c})
	}
	if len(diffs) == 0 {
		fmt.Fprintln(w, "no difference")
		return w.err
	}
	fmt.Fprintf(w, "\n%d %s\n", len(diffs), plural(len(diffs), "file differs", "files differ"))
	return w.err
}
