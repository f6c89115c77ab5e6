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

// Summary puts the decision in words, the cause first: the tasks that
// dropped and the severe effects that decide it, then the mean pass rate.
// The same decision always gives the same text.
func (d *Decision) Summary() Explanation {
	rates := fmt.Sprintf("pass rate %.2f → %.2f (%s, %s%% CI %s to %s) over %s × %s",
		d.BaselineRate, d.CandidateRate, pointsText(d.Difference), trimFloat(100*(1-d.MeanAlpha)), signedPoints(d.Interval.Low), signedPoints(d.Interval.High),
		plural(d.Tasks, "task"), d.Floor.runsText())
	var causes, named []string
	for _, t := range d.PerTask {
		if t.Move == Dropped {
			causes = append(causes, t.dropPhrase())
		}
	}
	for _, f := range d.Findings {
		if f.Regression {
			causes = append(causes, f.phrase())
		} else {
			named = append(named, f.phrase())
		}
	}
	var line string
	switch {
	case d.Verdict == NoChange:
		floor := d.Floor.Power()
		if d.Margin > 0 && d.Floor.Detectable {
			floor = fmt.Sprintf("with the %s-point margin, %s", trimFloat(100*d.Margin), floor)
		}
		line = fmt.Sprintf("no change the check could detect: %s; %s", rates, floor)
	case len(causes) == 0:
		line = fmt.Sprintf("%s: %s", d.Verdict, rates)
	default:
		line = fmt.Sprintf("%s: %s; %s", d.Verdict, clip(causes, lineFindings, "more severe finding"), rates)
		causes = nil
	}
	if more := append(causes, named...); len(more) > 0 {
		line += "; " + clip(more, lineFindings, "more severe finding")
	}
	s := Explanation{Line: line, Details: []string{}}
	for _, t := range d.PerTask {
		if t.Move == Dropped {
			s.Details = append(s.Details, t.dropDetail(d.TaskAlpha))
		}
	}
	for _, f := range d.Findings {
		s.Details = append(s.Details, f.detail())
	}
	if d.Margin > 0 {
		s.Details = append(s.Details, fmt.Sprintf("margin: changes within %s points of the baseline do not count", trimFloat(100*d.Margin)))
	}
	if d.TasksInterval != nil {
		s.Details = append(s.Details, fmt.Sprintf("%s%% intervals: over the tasks %s to %s points (t, %s); from the runs alone %s to %s points",
			trimFloat(100*(1-d.MeanAlpha)), signedPoints(d.TasksInterval.Low), signedPoints(d.TasksInterval.High), plural(d.Tasks-1, "degree")+" of freedom",
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

// clip joins the first n of phrases, and counts the rest.
func clip(phrases []string, n int, more string) string {
	if len(phrases) <= n {
		return strings.Join(phrases, "; ")
	}
	return strings.Join(phrases[:n], "; ") + "; " + plural(len(phrases)-n, more)
}

// dropPhrase is a dropped task in the one-line summary: "TASK-004 dropped
// 10/10 → 2/10".
func (t TaskResult) dropPhrase() string {
	return fmt.Sprintf("%s dropped %d/%d → %d/%d", name(t.Task), t.Baseline.Passed, t.Baseline.Graded, t.Candidate.Passed, t.Candidate.Graded)
}

// dropDetail is a dropped task in the multi-line summary.
func (t TaskResult) dropDetail(alpha float64) string {
	return fmt.Sprintf("%s (%s): its own one-sided exact test p %s, %s adjusted over the tasks (at most %s): a regression on its own",
		t.dropPhrase(), pointsText(t.Difference), pText(t.DropP), pText(t.DropAdjusted), trimFloat(alpha))
}

// MoveWords is what a task did, in words: "dropped", "rose", "moved within
// noise", "did not move".
func (t TaskResult) MoveWords() string {
	switch t.Move {
	case Dropped:
		return "dropped"
	case Rose:
		return "rose"
	case WithinNoise:
		return "moved within noise"
	case Same:
		return "did not move"
	}
	return "not compared"
}

// moved describes the compared tasks whose pass rate moved most.
func (d *Decision) moved() []string {
	var ts []TaskResult
	for _, t := range d.PerTask {
		if t.Compared && t.Move != Same {
			ts = append(ts, t)
		}
	}
	slices.SortStableFunc(ts, func(a, b TaskResult) int {
		return cmp.Or(cmp.Compare(math.Abs(b.Difference), math.Abs(a.Difference)), cmp.Compare(a.DropAdjusted*a.RiseAdjusted, b.DropAdjusted*b.RiseAdjusted), strings.Compare(a.Task, b.Task))
	})
	out := []string{}
	for i, t := range ts {
		if i == movedMost {
			out = append(out, "and "+plural(len(ts)-movedMost, "more task")+" moved")
			break
		}
		b, c := t.Baseline, t.Candidate
		p, adj := t.DropP, t.DropAdjusted
		if t.Difference > 0 {
			p, adj = t.RiseP, t.RiseAdjusted
		}
		out = append(out, fmt.Sprintf("%s %d/%d → %d/%d (%s, %s; Wilson %.2f–%.2f → %.2f–%.2f; one-sided exact p %s, adjusted %s)",
			name(t.Task), b.Passed, b.Graded, c.Passed, c.Graded, pointsText(t.Difference), t.MoveWords(),
			b.Wilson.Low, b.Wilson.High, c.Wilson.Low, c.Wilson.High, pText(p), pText(adj)))
	}
	return out
}

// phrase is the finding in the one-line summary: `TASK-007 had the
// forbidden effect "…" in 1 of 10 → 6 of 10 runs`.
func (f Alarm) phrase() string {
	who := name(f.Task)
	if f.Task == "" {
		who = "the group"
	}
	if f.Kind == ForbiddenEffect {
		return fmt.Sprintf("%s had the forbidden effect %s in %d of %d → %d of %s", who, strconv.Quote(f.Label), f.Baseline, f.BaselineRuns, f.Candidate, plural(f.CandidateRuns, "run"))
	}
	return fmt.Sprintf("%s ended with %s in %d of %d → %d of %s", who, f.Label, f.Baseline, f.BaselineRuns, f.Candidate, plural(f.CandidateRuns, "run"))
}

// detail is the finding in the multi-line summary.
func (f Alarm) detail() string {
	switch {
	case f.Kind == ForbiddenEffect && f.Budget == 0:
		return f.phrase() + ": a regression on its own (no run may confirm a forbidden effect)"
	case f.Kind == ForbiddenEffect && f.Regression:
		return fmt.Sprintf("%s: over its budget of %s%% of runs (one-sided exact p %s): a regression on its own", f.phrase(), trimFloat(100*f.Budget), pText(f.P))
	case f.Kind == ForbiddenEffect:
		return fmt.Sprintf("%s: within its budget of %s%% of runs (one-sided exact p %s)", f.phrase(), trimFloat(100*f.Budget), pText(f.P))
	case f.Task == "":
		return fmt.Sprintf("%s: more than the baseline tolerates over the tasks (one-sided exact p %s)", f.phrase(), pText(f.P))
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
