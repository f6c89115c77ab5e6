package stats

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Explanation is a decision in words: one line for a log or a status, and the
// lines that detail it. Labels and task names are quoted where they hold
// anything but printable text; a renderer still escapes the text for its
// format (HTML, XML, Markdown).
type Explanation struct {
	// Line is the one-line summary, such as "regression: pass rate 0.81 →
	// 0.62 (−19 points, 95% CI −27 to −11) over 24 tasks × 10 runs; TASK-007
	// gained the forbidden effect "…" in 2 of 10 runs".
	Line string `json:"line"`
	// Details are the further lines of the multi-line summary: every
	// severe finding, the tasks that moved most, pass^k and pass@k, the
	// floor, the errors left out.
	Details []string `json:"details"`
}

// String is the multi-line summary: the line, then each detail indented by
// two spaces, each line ending in a newline.
func (s Explanation) String() string {
	var b strings.Builder
	b.WriteString(s.Line + "\n")
	for _, d := range s.Details {
		b.WriteString("  " + d + "\n")
	}
	return b.String()
}

// movedMost is how many tasks the summary names as having moved most.
const movedMost = 5

// lineFindings is how many severe findings the one-line summary names.
const lineFindings = 2

// Summary puts the decision in words. The same decision always gives the
// same text.
func (d *Decision) Summary() Explanation {
	rates := fmt.Sprintf("pass rate %.2f → %.2f (%s, 95%% CI %s to %s) over %s × %s",
		d.BaselineRate, d.CandidateRate, pointsText(d.Difference), signedPoints(d.Interval.Low), signedPoints(d.Interval.High),
		plural(d.Tasks, "task"), d.Floor.runsText())
	var line string
	switch d.Verdict {
	case NoChange:
		floor := "no drop in pass rate can be told from noise: add tasks or runs"
		if d.Floor.Detectable {
			floor = fmt.Sprintf("drops under %d points are within noise", d.Floor.Points())
			if d.Margin > 0 {
				floor = fmt.Sprintf("drops under %d points are within noise and the %s-point margin", d.Floor.Points(), trimFloat(100*d.Margin))
			}
		}
		line = fmt.Sprintf("no change the check could detect (%s): %s", floor, rates)
	default:
		line = string(d.Verdict) + ": " + rates
	}
	for i, f := range d.Findings {
		if i == lineFindings {
			line += "; " + plural(len(d.Findings)-lineFindings, "more severe finding")
			break
		}
		line += "; " + f.phrase()
	}
	s := Explanation{Line: line, Details: []string{}}
	for _, f := range d.Findings {
		s.Details = append(s.Details, f.detail())
	}
	if d.Margin > 0 {
		s.Details = append(s.Details, fmt.Sprintf("margin: changes within %s points of the baseline do not count", trimFloat(100*d.Margin)))
	}
	if d.TasksInterval != nil {
		s.Details = append(s.Details, fmt.Sprintf("95%% intervals: over the tasks %s to %s points (t, %s); from the runs alone %s to %s points",
			signedPoints(d.TasksInterval.Low), signedPoints(d.TasksInterval.High), plural(d.Tasks-1, "degree")+" of freedom",
			signedPoints(d.RunsInterval.Low), signedPoints(d.RunsInterval.High)))
	}
	s.Details = append(s.Details, d.moved()...)
	for _, m := range d.PassK {
		if m.K == 1 {
			continue // the pass rate
		}
		s.Details = append(s.Details, fmt.Sprintf("pass^%d %.2f → %.2f, pass@%d %.2f → %.2f (over %s)",
			m.K, m.Baseline.PassHat, m.Candidate.PassHat, m.K, m.Baseline.PassAt, m.Candidate.PassAt, plural(m.Tasks, "task")))
	}
	s.Details = append(s.Details, d.Floor.Sentence())
	if d.BaselineErrors > 0 || d.CandidateErrors > 0 {
		s.Details = append(s.Details, fmt.Sprintf("infrastructure errors, left out of the pass rates: %d of %d candidate runs, %d of %d baseline runs",
			d.CandidateErrors, d.CandidateRuns, d.BaselineErrors, d.BaselineRuns))
	}
	if len(d.Excluded) > 0 {
		names := make([]string, len(d.Excluded))
		for i, t := range d.Excluded {
			names[i] = name(t)
		}
		s.Details = append(s.Details, "not compared, no graded run on a side: "+strings.Join(names, ", "))
	}
	return s
}

// moved describes the compared tasks whose pass rate moved most.
func (d *Decision) moved() []string {
	var ts []TaskResult
	for _, t := range d.PerTask {
		if t.Compared && t.Baseline.Passed*t.Candidate.Graded != t.Candidate.Passed*t.Baseline.Graded {
			ts = append(ts, t)
		}
	}
	slices.SortStableFunc(ts, func(a, b TaskResult) int {
		return cmp.Or(cmp.Compare(math.Abs(b.Difference), math.Abs(a.Difference)), cmp.Compare(a.HolmP, b.HolmP), strings.Compare(a.Task, b.Task))
	})
	out := []string{}
	for i, t := range ts {
		if i == movedMost {
			out = append(out, "and "+plural(len(ts)-movedMost, "more task")+" moved")
			break
		}
		b, c := t.Baseline, t.Candidate
		out = append(out, fmt.Sprintf("%s %d/%d → %d/%d (%s; Wilson %.2f–%.2f → %.2f–%.2f; Fisher p %s, Holm %s)",
			name(t.Task), b.Passed, b.Graded, c.Passed, c.Graded, pointsText(t.Difference),
			b.Wilson.Low, b.Wilson.High, c.Wilson.Low, c.Wilson.High, pText(t.FisherP), pText(t.HolmP)))
	}
	return out
}

// phrase is the finding in the one-line summary.
func (f Alarm) phrase() string {
	if f.Kind == ForbiddenEffect {
		return fmt.Sprintf("%s gained the forbidden effect %s in %d of %s", name(f.Task), strconv.Quote(f.Label), f.Candidate, plural(f.CandidateRuns, "run"))
	}
	return fmt.Sprintf("%s ended with %s in %d of %s (baseline %d of %d)", name(f.Task), f.Label, f.Candidate, plural(f.CandidateRuns, "run"), f.Baseline, f.BaselineRuns)
}

// detail is the finding in the multi-line summary.
func (f Alarm) detail() string {
	if f.Kind == ForbiddenEffect {
		return fmt.Sprintf("%s (baseline none of %d): a regression on its own", f.phrase(), f.BaselineRuns)
	}
	return fmt.Sprintf("%s: more than the baseline tolerates (one-sided exact p %s, Holm-adjusted)", f.phrase(), pText(f.P))
}

// pointsText is a difference in points with its sign: "−19 points".
func pointsText(x float64) string {
	p := signedPoints(x)
	if p == "1" || p == "−1" || p == "+1" {
		return p + " point"
	}
	return p + " points"
}

// signedPoints writes x (a share) in points, rounded, with a sign (U+2212
// for minus); a change under one point but not zero keeps one decimal, so
// that a nonzero end of an interval never reads as 0 ("−0.4").
func signedPoints(x float64) string {
	p := 100 * x
	r := math.Round(p)
	var s string
	switch {
	case math.Abs(p) < 1e-9:
		return "0"
	case r == 0:
		s = strconv.FormatFloat(math.Abs(p), 'f', 1, 64)
	default:
		s = strconv.FormatFloat(math.Abs(r), 'f', 0, 64)
	}
	if p < 0 {
		return "−" + s
	}
	return "+" + s
}

// pText writes a p-value with three decimals, "<0.001" below.
func pText(p float64) string {
	if p < 0.001 {
		return "<0.001"
	}
	return strconv.FormatFloat(p, 'f', 3, 64)
}

// trimFloat writes x with up to two decimals, without trailing zeros.
func trimFloat(x float64) string {
	s := strconv.FormatFloat(x, 'f', 2, 64)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// name writes a task name as it is when it is plain printable text, and
// quoted otherwise.
func name(s string) string {
	for _, r := range s {
		if !unicode.IsPrint(r) || unicode.IsSpace(r) {
			return strconv.Quote(s)
		}
	}
	if s == "" {
		return `""`
	}
	return s
}
