package oracle

import (
	"fmt"
	"io"
	"strings"
)

// WriteMarkdown writes the report as a pull-request comment or a CI job
// summary: a headline, a table of the cases that need attention, and each
// semantic diff in a collapsible section.
func WriteMarkdown(w io.Writer, r *Report) error {
	icon := "✅"
	switch r.ExitCode() {
	case 1:
		icon = "❌"
	case 2:
		icon = "⚠️"
	}
	fmt.Fprintf(w, "### %s oracle check\n\n%s\n\n", icon, mdEscape(SummaryLine(r)))
	if v := r.Summary.Violations; v > 0 {
		fmt.Fprintf(w, "**Violations:** %d %s with a confirmed forbidden effect.\n\n", v, plural(v, "case", "cases"))
	}
	var attention []*CaseReport
	for _, c := range r.Cases {
		if c.Status != StatusUnchanged {
			attention = append(attention, c)
		}
	}
	if len(attention) == 0 {
		return nil
	}
	fmt.Fprintln(w, "| case | status | note |")
	fmt.Fprintln(w, "| --- | --- | --- |")
	for _, c := range attention {
		note := ""
		switch {
		case c.Label != "":
			note = fmt.Sprintf("**%s** (%s → %s)", c.Label, c.OldVerdict, c.NewVerdict)
		case c.Status == StatusChanged && c.OldVerdict != "":
			note = "verdict " + string(c.NewVerdict) + ", as before"
		case c.Status == StatusMissing:
			note = "no baseline: run `oracle record`"
		case c.Status == StatusObsolete:
			note = "baseline with no case: `oracle record --prune` removes it"
		case c.Status == StatusNondeterministic && c.Divergence != nil:
			note = mdEscape(c.Divergence.String())
		case c.Error != "":
			note = mdEscape(c.Error)
		}
		fmt.Fprintf(w, "| `%s` | %s | %s |\n", c.Case, c.Status, note)
	}
	for _, c := range attention {
		files := c.Files
		if c.Divergence != nil {
			files = []*FileDiff{c.Divergence.Diff}
		}
		if len(files) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n<details><summary><code>%s</code> %s</summary>\n\n", c.Case, c.Status)
		for _, f := range files {
			fmt.Fprintf(w, "**%s**", f.File)
			if f.Error != "" {
				fmt.Fprintf(w, ": %s", mdEscape(f.Error))
			}
			fmt.Fprint(w, "\n\n")
			if len(f.Changes) > 0 {
				fmt.Fprintln(w, "| op | path | old | new |")
				fmt.Fprintln(w, "| --- | --- | --- | --- |")
				for _, ch := range f.Changes {
					fmt.Fprintf(w, "| %s | `%s` | %s | %s |\n", ch.Op, mdCode(ch.Path), mdValue(ch.From), mdValue(ch.To))
				}
				fmt.Fprintln(w)
			}
			for _, inv := range f.Invisible {
				fmt.Fprintf(w, "- invisible difference: %s\n", inv)
			}
		}
		fmt.Fprintln(w, "\n</details>")
	}
	return nil
}

func mdValue(v []byte) string {
	if v == nil {
		return ""
	}
	return "`" + mdCode(clip(string(v), 200)) + "`"
}

// mdCode makes text safe inside a table cell's code span.
func mdCode(s string) string {
	return strings.NewReplacer("|", "\\|", "`", "'", "\n", " ").Replace(s)
}

func mdEscape(s string) string {
	return strings.NewReplacer("|", "\\|", "<", "&lt;", ">", "&gt;", "\n", " ").Replace(s)
}
