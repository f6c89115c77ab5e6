package oracle

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/oracle/report"
	"github.com/agent-oracle/oracle/oracle/stats"
)

// RecordedGroup is how well the distribution cases one record froze for an
// environment and agent can be checked: the smallest drop in pass rate a
// check of them, with as many runs, could tell from noise.
type RecordedGroup struct {
	Env   string `json:"env"`
	Agent string `json:"agent"`
	// Floor is from the recorded pass rates; Sentence says it ("8 tasks ×
	// 10 runs: drops under 26 points cannot be told from noise").
	Floor    stats.Floor `json:"floor"`
	Sentence string      `json:"sentence"`
	// Detect is the drop the user asked to detect (DistributionOptions.
	// Detect), 0 when none was asked. When the floor is above it,
	// RunsForDetect is the runs a task that would reach it, or
	// DetectError why no number of runs can.
	Detect        float64 `json:"detect,omitempty"`
	AboveDetect   bool    `json:"aboveDetect,omitempty"`
	RunsForDetect int     `json:"runsForDetect,omitempty"`
	DetectError   string  `json:"detectError,omitempty"`
	// Comparison is, when the record replaces distributions of the group,
	// what a check of the new runs against them decides, in words.
	Comparison *stats.Explanation `json:"comparison,omitempty"`
	// Refused says why record wrote nothing: the new distributions are a
	// regression against those they replace, one holds a confirmed
	// forbidden effect, or one has too few graded runs
	// (DistributionOptions.AllowRegressions writes them anyway).
	Refused string `json:"refused,omitempty"`
	// SuggestRuns is the runs a baseline of the group is better recorded
	// with: a baseline is compared by every check, so its noise counts in
	// all of them; twice the runs of a check halves its share of the
	// variance.
	SuggestRuns int `json:"suggestRuns,omitempty"`
}

// MinGraded is the fewest graded runs a distribution baseline may have: a
// single run is no rate.
const MinGraded = 2

// judgeReplacement compares the group's new distributions (keys, dists)
// with those stored before (old, nil where there was none) as a check
// would, and says whether record must refuse them.
func (g *RecordedGroup) judgeReplacement(keys []baseline.Key, dists []*stats.Distribution, old []*stats.Distribution, allow bool) {
	var pairs []stats.Pair
	var reasons []string
	for i, d := range dists {
		if d.Graded() > 0 && d.Graded() < MinGraded {
			reasons = append(reasons, fmt.Sprintf("%s has %d graded run; a baseline needs at least %d", keys[i].Task, d.Graded(), MinGraded))
		}
		for _, label := range sortedLabels(d.Violations) {
			reasons = append(reasons, fmt.Sprintf("%s confirmed the forbidden effect %q in %d of %d runs", keys[i].Task, label, d.Violations[label], d.Graded()))
		}
		if old[i] != nil && old[i].Graded() > 0 && d.Graded() > 0 {
			pairs = append(pairs, stats.Pair{Task: keys[i].Task, Baseline: old[i], Candidate: d})
		}
	}
	if len(pairs) > 0 {
		if dec, err := stats.Decide(pairs, stats.Options{}); err == nil {
			ex := dec.Summary()
			g.Comparison = &ex
			if dec.Verdict == stats.Regression {
				reasons = append(reasons, "the new runs are a regression against the distributions they replace")
			}
		}
	}
	if len(reasons) > 0 && !allow {
		g.Refused = strings.Join(reasons, "; ")
	}
}

func sortedLabels(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Name is env/agent.
func (g RecordedGroup) Name() string { return g.Env + "/" + g.Agent }

// recordPlan is how record treats case c: as a distribution case of runs
// runs when runs is 2 or more, else byte for byte (nil).
func recordPlan(runs int) func(c Case) *casePlan {
	return func(c Case) *casePlan {
		if runs < 2 {
			return nil
		}
		return &casePlan{dist: true, runs: runs}
	}
}

// recordDistribution is the record report line and the baseline entry of
// a distribution case that ran: an error when fewer than two of its runs
// were graded (the others failed for the infrastructure), which is no
// distribution a check could compare with.
func recordDistribution(key baseline.Key, fresh *freshRuns) (RecordedCase, baseline.Entry) {
	rc := RecordedCase{Case: key.String(), Kind: report.KindDistribution}
	d := fresh.Dist
	if d.Graded() == 0 {
		rc.Status = RecordError
		rc.Error = fmt.Sprintf("all %d runs failed for the infrastructure, not the agent", d.Runs)
		if fresh.InfraError != "" {
			rc.Error += ": " + fresh.InfraError
		}
		return rc, baseline.Entry{}
	}
	if d.Graded() < 2 {
		rc.Status = RecordError
		rc.Error = fmt.Sprintf("only %d of %d runs was graded, the others failed for the infrastructure, not the agent; a distribution needs 2 graded runs or more: record it again once the agent's API works", d.Graded(), d.Runs)
		if fresh.InfraError != "" {
			rc.Error += " (" + fresh.InfraError + ")"
		}
		return rc, baseline.Entry{}
	}
	data, err := d.Marshal()
	if err != nil {
		rc.Status, rc.Error = RecordError, err.Error()
		return rc, baseline.Entry{}
	}
	rc.Status, rc.Distribution = RecordNotWritten, data
	return rc, baseline.Entry{Stats: data}
}

// replacedKind names the kind of baseline writing e over k's replaces: the
// other kind than e's, when k has it; "" otherwise. dist says whether k's
// baseline holds a distribution: a byte-for-byte entry needs no more.
func replacedKind(r *baseline.Reader, k baseline.Key, e baseline.Entry, dist bool) string {
	if e.Stats == nil {
		if dist {
			return report.KindDistribution
		}
		return ""
	}
	kind, err := r.KindOf(k)
	if err != nil {
		return "" // the write finds it
	}
	switch {
	case e.Stats != nil && (kind == baseline.Bytes || kind == baseline.BothKinds):
		return kindBytes
	case e.Stats == nil && (kind == baseline.Distribution || kind == baseline.BothKinds):
		return report.KindDistribution
	}
	return ""
}

// recordedGroups gives, for each environment and agent of the recorded
// distributions (in key order), the floor of a check of them, and with
// detect > 0 whether it is above detect and the runs that would reach it.
func recordedGroups(cases []stats.KeyedDistribution, keys []baseline.Key, detect float64) []RecordedGroup {
	var out []RecordedGroup
	for i := 0; i < len(cases); {
		j := i
		for j < len(cases) && keys[j].Env == keys[i].Env && keys[j].Agent == keys[i].Agent {
			j++
		}
		var rates []float64
		runs := 0
		for _, c := range cases[i:j] {
			if rate, ok := c.Dist.PassRate(); ok {
				rates = append(rates, rate)
				if runs == 0 || c.Dist.Graded() < runs {
					runs = c.Dist.Graded()
				}
			}
		}
		g := RecordedGroup{Env: keys[i].Env, Agent: keys[i].Agent, Detect: detect}
		i = j
		if len(rates) == 0 {
			continue
		}
		d := stats.Design{Tasks: len(rates), Runs: runs, Rates: rates}
		floor, err := stats.DetectableDrop(d)
		if err != nil {
			continue
		}
		g.Floor, g.Sentence = floor, floor.Sentence()
		g.SuggestRuns = 2 * runs
		if detect > 0 && (!floor.Detectable || floor.Drop > detect) {
			g.AboveDetect = true
			if n, err := stats.RunsFor(d, detect); err != nil {
				g.DetectError = err.Error()
			} else {
				g.RunsForDetect = n
			}
		}
		out = append(out, g)
	}
	return out
}
