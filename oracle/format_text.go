package oracle

import (
	"fmt"
	"io"
	"strings"
)

// Colors paints parts of the text report. The zero value paints nothing.
type Colors struct {
	Good, Bad, Warn, Dim, Bold func(a ...any) string
}

func (c Colors) paint(f func(...any) string, s string) string {
	if f == nil {
		return s
	}
	return f(s)
}

// TextOptions shape the text report.
type TextOptions struct {
	Colors Colors
	// All lists unchanged cases too.
	All bool
	// MaxValue bounds how much of a value is shown; 0 means 160 characters.
	MaxValue int
}

// WriteText writes the report for a terminal or a CI log: every case that
// needs attention with its semantic diff, then a summary line.
func WriteText(w io.Writer, r *Report, o TextOptions) error {
	c := o.Colors
	for _, cr := range r.Cases {
		if cr.Status == StatusUnchanged && !o.All {
			continue
		}
		status := fmt.Sprintf("%-16s", cr.Status)
		switch cr.Status {
		case StatusUnchanged:
			status = c.paint(c.Good, status)
		case StatusError, StatusChanged, StatusNondeterministic:
			status = c.paint(c.Bad, status)
		default:
			status = c.paint(c.Warn, status)
		}
		fmt.Fprintf(w, "%s %s%s\n", status, c.paint(c.Bold, cr.Case), caseNote(c, cr))
		for _, f := range cr.Files {
			writeFileDiff(w, c, f, "    ", o.MaxValue)
		}
		if cr.Divergence != nil {
			fmt.Fprintf(w, "    run %d differs from run 1:\n", cr.Divergence.Run)
			writeFileDiff(w, c, cr.Divergence.Diff, "    ", o.MaxValue)
		}
	}
	if len(r.Cases) > 0 && (o.All || r.Summary.Unchanged < len(r.Cases)) {
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, SummaryLine(r))
	if v := r.Summary.Violations; v > 0 {
		fmt.Fprintln(w, c.paint(c.Bad, fmt.Sprintf("violations: %d %s with a confirmed forbidden effect", v, plural(v, "case", "cases"))))
	}
	return nil
}

func caseNote(c Colors, cr *CaseReport) string {
	switch cr.Status {
	case StatusChanged:
		if cr.Label != "" {
			return "  " + c.paint(c.Bad, string(cr.Label)) + fmt.Sprintf(" (%s → %s)", cr.OldVerdict, cr.NewVerdict)
		}
		if cr.OldVerdict != "" {
			return c.paint(c.Dim, "  verdict "+string(cr.NewVerdict)+", as before")
		}
	case StatusMissing:
		return c.paint(c.Dim, "  no baseline; run oracle record to freeze it")
	case StatusObsolete:
		return c.paint(c.Dim, "  baseline with no case; oracle record --prune removes it")
	case StatusError:
		return "  " + cr.Error
	}
	return ""
}

func writeFileDiff(w io.Writer, c Colors, f *FileDiff, indent string, maxValue int) {
	fmt.Fprintf(w, "%s%s", indent, c.paint(c.Bold, f.File))
	switch f.State {
	case FileAdded:
		fmt.Fprint(w, " (new file)")
	case FileRemoved:
		fmt.Fprint(w, " (file gone)")
	case FileUnreadable:
		fmt.Fprint(w, ": "+f.Error)
	}
	fmt.Fprintln(w)
	for _, ch := range f.Changes {
		switch ch.Op {
		case ChangeAdd:
			fmt.Fprintf(w, "%s  %s %s: %s\n", indent, c.paint(c.Good, "+"), ch.Path, c.paint(c.Good, clip(string(ch.To), maxValue)))
		case ChangeRemove:
			fmt.Fprintf(w, "%s  %s %s: %s\n", indent, c.paint(c.Bad, "-"), ch.Path, c.paint(c.Bad, clip(string(ch.From), maxValue)))
		default:
			fmt.Fprintf(w, "%s  %s %s: %s → %s\n", indent, c.paint(c.Warn, "~"), ch.Path,
				c.paint(c.Bad, clip(string(ch.From), maxValue)), c.paint(c.Good, clip(string(ch.To), maxValue)))
		}
	}
	for _, inv := range f.Invisible {
		fmt.Fprintf(w, "%s  %s %s\n", indent, c.paint(c.Warn, "!"), "invisible difference: "+inv)
	}
}

func clip(s string, n int) string {
	if n <= 0 {
		n = 160
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// SummaryLine counts a report's cases in one line.
func SummaryLine(r *Report) string {
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

// WritePathDiffs writes the result of DiffPaths as text.
func WritePathDiffs(w io.Writer, diffs []PathDiff, c Colors) {
	for _, d := range diffs {
		f := *d.Diff
		f.File = d.Path
		writeFileDiff(w, c, &f, "", 0)
	}
	if len(diffs) == 0 {
		fmt.Fprintln(w, "no difference")
		return
	}
	fmt.Fprintf(w, "\n%d %s\n", len(diffs), plural(len(diffs), "file differs", "files differ"))
}
