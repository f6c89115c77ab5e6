package render

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/agent-oracle/oracle/oracle/change"
	"github.com/agent-oracle/oracle/oracle/report"
	"github.com/agent-oracle/oracle/oracle/stats"
)

// The statistical gate in every format: for each environment and agent
// with distribution cases, the decision in words (stats.Summary: the
// pass rates and their 95% interval, the verdict, the severe findings, the
// tasks that moved most, pass^k and pass@k, the floor), and on each
// distribution case's line its runs, pass counts and Wilson intervals and
// what the gate says. Each format calls one function of this file where
// the gate goes.

// distributionNote is what a distribution case's line says after its
// name: "distribution · 10 runs · pass 10/10 → 2/10 (−80 points; Wilson
// 0.72–1.00 → 0.06–0.51) · dropped", what its own task did in the
// group's decision. An error's note is its error.
func distributionNote(cr *report.Case) string {
	d := cr.Distribution
	if d == nil || cr.Status == report.StatusError {
		return cr.Error
	}
	parts := []string{"distribution", plural2(d.Runs, "run")}
	if t := d.Task; t != nil {
		b, c := t.Baseline, t.Candidate
		parts = append(parts, fmt.Sprintf("pass %d/%d → %d/%d (%s; Wilson %.2f–%.2f → %.2f–%.2f)",
			b.Passed, b.Graded, c.Passed, c.Graded, points(t.Difference), b.Wilson.Low, b.Wilson.High, c.Wilson.Low, c.Wilson.High))
		if c.Errors > 0 {
			parts = append(parts, plural2(c.Errors, "infrastructure error"))
		}
	}
	if len(cr.Violations) > 0 {
		parts = append(parts, "forbidden effect "+violationCounts(cr))
	}
	if d.Said != "" && d.Said != report.SaidForbidden {
		parts = append(parts, d.Said)
	}
	return strings.Join(parts, " · ")
}

// distributionRegression is 1 for a distribution case labelled a
// regression, 0 for any other, for the count regressionWhat takes.
func distributionRegression(cr *report.Case) int {
	if cr.Kind == report.KindDistribution && cr.Label == change.LabelRegression {
		return 1
	}
	return 0
}

// regressionWhat says what the regressions of a report are, of which dist
// are distribution cases: cases that passed and no longer pass, cases the
// statistical gate found worse, or both.
func regressionWhat(all, dist int) string {
	switch {
	case dist == 0:
		return "a case that passed no longer passes"
	case dist >= all:
		return "the statistical gate found a distribution case worse (distribution cases, below)"
	}
	return "a case that passed no longer passes, or the statistical gate found a distribution case worse (distribution cases, below)"
}

// verdictWords is a gate's verdict in words.
func verdictWords(v stats.Conclusion) string {
	if v == stats.NoChange {
		return "no change"
	}
	return string(v)
}

// points is a difference of pass rates in points, signed: "−50 points",
// "+1 point".
func points(x float64) string {
	p := math.Round(100 * x)
	unit := " points"
	if math.Abs(p) == 1 {
		unit = " point"
	}
	switch {
	case p == 0:
		return "0 points"
	case p < 0:
		return "−" + strconv.FormatFloat(-p, 'f', 0, 64) + unit
	}
	return "+" + strconv.FormatFloat(p, 'f', 0, 64) + unit
}

// violationCounts is each confirmed forbidden effect of a distribution
// case with its baseline's and its fresh runs' counts: `"duplicate
// account" 1 of 10 → 6 of 10`; the labels alone when the counts cannot be
// read.
func violationCounts(cr *report.Case) string {
	base, fresh, err := cr.Distribution.Parsed()
	if err != nil || base == nil {
		return quoted(cr.Violations)
	}
	out := make([]string, len(cr.Violations))
	for i, l := range cr.Violations {
		out[i] = fmt.Sprintf("%s %d of %d → %d of %d", quoted([]string{l}), base.Violations[l], base.Graded(), fresh.Violations[l], fresh.Graded())
	}
	return strings.Join(out, ", ")
}

func plural2(n int, one string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + one + "s"
}

// gateLines are the lines of the gate of r: for each group its name and
// summary line, and the details indented; then the infrastructure errors.
// None when r has no distribution case.
func gateLines(r *report.Report) (groups []gateGroup, infra string) {
	g := r.Gate
	if g == nil {
		return nil, ""
	}
	for _, gd := range g.Groups {
		groups = append(groups, gateGroup{Name: gd.Name(), Verdict: string(verdictOf(gd)), Line: gd.Summary.Line, Details: gd.Summary.Details})
	}
	if in := g.Infrastructure; in.Errors > 0 {
		infra = fmt.Sprintf("infrastructure errors: %d of %d runs of distribution cases failed for the infrastructure, not the agent, and were not graded (at most %s may)",
			in.Errors, in.Runs, strconv.FormatFloat(100*in.MaxShare, 'f', -1, 64)+"%")
		if err := in.Err(); err != nil {
			infra = err.Error()
		}
	}
	return groups, infra
}

// gateGroup is one group's decision as the reports show it.
type gateGroup struct {
	Name, Verdict, Line string
	Details             []string
}

// verdictOf is the group's verdict; "error" when it could not be decided.
func verdictOf(g *report.GroupDecision) stats.Conclusion {
	if g.Decision == nil {
		return "error"
	}
	return g.Decision.Verdict
}

// textGate writes the gate of r in the text report.
func textGate(w io.Writer, r *report.Report, o Options) {
	groups, infra := gateLines(r)
	c := o.Colors
	for _, g := range groups {
		line := g.Line
		switch g.Verdict {
		case string(stats.NoChange):
			line = c.paint(c.Good, line)
		default:
			line = c.paint(c.Bad, line)
		}
		fmt.Fprintf(w, "%s %s: %s\n", c.paint(c.Bold, "distribution"), c.paint(c.Bold, g.Name), line)
		for _, d := range g.Details {
			fmt.Fprintf(w, "  %s\n", d)
		}
	}
	if infra != "" {
		fmt.Fprintln(w, c.paint(c.Bad, infra))
	}
}

// markdownGate writes the gate of r in the Markdown report.
func markdownGate(w io.Writer, r *report.Report) {
	groups, infra := gateLines(r)
	if len(groups) == 0 && infra == "" {
		return
	}
	fmt.Fprintln(w, "**Distribution cases** (the statistical gate over each environment and agent):")
	fmt.Fprintln(w)
	for _, g := range groups {
		line := mdText(g.Line)
		if g.Verdict != string(stats.NoChange) {
			line = "<b>" + line + "</b>"
		}
		fmt.Fprintf(w, "- %s: %s\n", mdCode(g.Name), line)
		for _, d := range g.Details {
			fmt.Fprintf(w, "  - %s\n", mdText(d))
		}
	}
	if infra != "" {
		fmt.Fprintf(w, "\n**%s**\n", mdText(infra))
	}
	fmt.Fprintln(w)
}

// junitGate writes, inside the test suite of env, the decisions of its
// groups as the suite's standard output.
func junitGate(w *bufio.Writer, r *report.Report, env string) {
	groups, infra := gateLines(r)
	var b strings.Builder
	for _, g := range groups {
		if !strings.HasPrefix(g.Name, env+"/") {
			continue
		}
		fmt.Fprintf(&b, "distribution %s: %s\n", g.Name, g.Line)
		for _, d := range g.Details {
			fmt.Fprintf(&b, "  %s\n", d)
		}
	}
	if b.Len() == 0 {
		return
	}
	if infra != "" {
		b.WriteString(infra + "\n")
	}
	w.WriteString("\n    <system-out>")
	xml.EscapeText(w, []byte(b.String()))
	w.WriteString("</system-out>")
}

// htmlGate writes the gate of r in the HTML page.
func htmlGate(w io.Writer, r *report.Report) error {
	groups, infra := gateLines(r)
	if len(groups) == 0 && infra == "" {
		return nil
	}
	if err := htmlGatePage.Execute(w, struct {
		Groups []gateGroup
		Infra  string
	}{groups, infra}); err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	return nil
}

var htmlGatePage = template.Must(template.New("gate").Parse(`<style>
.verdict-regression, .verdict-error { color: #cf222e; font-weight: bold; } .verdict-improvement { color: #9a6700; font-weight: bold; }
.verdict-no_change { color: #1a7f37; }
</style>
<h2 id="distributions">distribution cases</h2>
{{range .Groups}}<section class="gate" data-verdict="{{.Verdict}}">
<h3><code>{{.Name}}</code></h3>
<p class="gate-line verdict-{{.Verdict}}">{{.Line}}</p>
{{if .Details}}<ul class="gate-details">
{{range .Details}}<li>{{.}}</li>
{{end}}</ul>
{{end}}</section>
{{end}}{{if .Infra}}<p class="gate-infra status-error">{{.Infra}}</p>
{{end}}`))

// quoted is a label as the gate's words write it: quoted, its escape and
// control characters escaped.
func quoted(labels []string) string {
	q := make([]string, len(labels))
	for i, l := range labels {
		q[i] = safe(strconv.Quote(l))
	}
	return strings.Join(q, ", ")
}
