package mutate

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/agent-oracle/oracle/internal/safetext"
)

// Formats are the report formats, as --format names them.
var Formats = []string{"text", "json", "markdown"}

// Write writes the report in the format named.
func (rep *Report) Write(w io.Writer, format string) error {
	switch format {
	case "json":
		data, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return err
		}
		_, err = w.Write(append(data, '\n'))
		return err
	case "markdown":
		_, err := io.WriteString(w, rep.markdown())
		return err
	case "text":
		_, err := io.WriteString(w, rep.text())
		return err
	}
	return fmt.Errorf("no report format %q; use one of %s", format, strings.Join(Formats, ", "))
}

// Totals is the report's one-line summary.
func (rep *Report) Totals() string {
	c := rep.Counts
	n := c.Counted()
	s := fmt.Sprintf("baselines caught %d of %d, verifiers alone %d of %d, %d survived, %d not covered",
		c.Caught, n, c.Verifiers, n, c.Survived, c.NoCoverage)
	if c.Timeout > 0 {
		s += fmt.Sprintf(", %d timed out", c.Timeout)
	}
	if c.Error > 0 {
		s += fmt.Sprintf(", %d did not build or load (not counted)", c.Error)
	}
	return s
}

// Scores says the mutation score with and without the baselines.
func (rep *Report) Scores() string {
	return fmt.Sprintf("mutation score %.1f%% with the baselines, %.1f%% with the verifiers alone",
		rep.Counts.Score(), rep.Counts.VerifierScore())
}

func (rep *Report) scope() string {
	s := fmt.Sprintf("%s (%s): %d mutants in %d files", rep.Env, rep.Language, rep.Found, len(rep.Files))
	if rep.Selected != rep.Found {
		s += fmt.Sprintf(", %d run", rep.Selected)
		if rep.Max > 0 {
			s += fmt.Sprintf(" (--max %d --seed %d)", rep.Max, rep.Seed)
		}
	}
	return s + fmt.Sprintf(", against %d cases, in %s", len(rep.Cases), rep.Duration.Round(100*time.Millisecond))
}

func (rep *Report) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\n", safetext.String(rep.scope()))
	for _, r := range rep.Mutants {
		fmt.Fprintf(&b, "%-11s %s  %s", r.Outcome, safetext.String(r.ID), safetext.String(r.Change()))
		switch {
		case r.Outcome == Caught && r.Verifiers:
			fmt.Fprintf(&b, "  by the verifiers and %s", strings.Join(r.Artifacts, ", "))
		case r.Outcome == Caught:
			fmt.Fprintf(&b, "  by the baselines only: %s", strings.Join(r.Artifacts, ", "))
		case r.Outcome == Error:
			fmt.Fprintf(&b, "  %s", safetext.String(r.Error))
		}
		b.WriteByte('\n')
	}
	survivors := rep.outcomes(Survived)
	if len(survivors) > 0 {
		fmt.Fprintf(&b, "\nsurvived:\n")
		for _, r := range survivors {
			fmt.Fprintf(&b, "\n%s\n  ran in: %s\n  to catch it: %s\n", safetext.String(r.ID), safetext.String(strings.Join(r.Ran, ", ")), r.Hint())
			for _, l := range splitLines(r.Diff) {
				fmt.Fprintf(&b, "  %s\n", codeLine(strings.TrimSuffix(l, "\n")))
			}
		}
	}
	fmt.Fprintf(&b, "\n%d mutants: %s\n%s\n", len(rep.Mutants), rep.Totals(), rep.Scores())
	return b.String()
}

func (rep *Report) outcomes(o Outcome) []Result {
	var out []Result
	for _, r := range rep.Mutants {
		if r.Outcome == o {
			out = append(out, r)
		}
	}
	return out
}

// markdown is a pull-request comment: the totals, a table of outcomes,
// and each survivor's diff.
func (rep *Report) markdown() string {
	var b strings.Builder
	c := rep.Counts
	fmt.Fprintf(&b, "## oracle mutate: %s\n\n%s.\n\n**%s**; %s.\n\n", md(rep.Env), md(rep.scope()), md(rep.Totals()), md(rep.Scores()))
	b.WriteString("| outcome | mutants |\n| --- | ---: |\n")
	fmt.Fprintf(&b, "| caught by the verifiers (and the baselines) | %d |\n| caught by the baselines only | %d |\n", c.Verifiers, c.Caught-c.Verifiers)
	fmt.Fprintf(&b, "| survived | %d |\n| not covered | %d |\n| timed out | %d |\n| did not build or load | %d |\n\n", c.Survived, c.NoCoverage, c.Timeout, c.Error)
	for _, o := range []Outcome{Survived, NoCoverage} {
		list := rep.outcomes(o)
		if len(list) == 0 {
			continue
		}
		title := map[Outcome]string{Survived: "Survived", NoCoverage: "Not covered"}[o]
		fmt.Fprintf(&b, "### %s\n\n", title)
		for _, r := range list {
			fmt.Fprintf(&b, "- `%s`: %s. To catch it: %s.\n", md(r.ID), md(r.Change()), r.Hint())
			if o == Survived {
				fence := "```"
				for strings.Contains(r.Diff, fence) {
					fence += "`"
				}
				fmt.Fprintf(&b, "\n  %sdiff\n", fence)
				for _, l := range splitLines(r.Diff) {
					fmt.Fprintf(&b, "  %s\n", codeLine(strings.TrimSuffix(l, "\n")))
				}
				fmt.Fprintf(&b, "  %s\n\n", fence)
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// codeLine escapes a line of source for a terminal or a report, keeping
// its tabs.
func codeLine(s string) string {
	parts := strings.Split(s, "\t")
	for i, p := range parts {
		parts[i] = safetext.String(p)
	}
	return strings.Join(parts, "\t")
}

// md escapes text for one line of Markdown.
func md(s string) string {
	return strings.NewReplacer("|", `\|`, "<", "&lt;", ">", "&gt;").Replace(safetext.String(s))
}
