package oracle

import (
	"context"
	"fmt"
	"iter"
	"math"
	"slices"

	"github.com/agent-oracle/oracle/oracle/change"
	"github.com/agent-oracle/oracle/oracle/report"
	"github.com/agent-oracle/oracle/oracle/stats"
)

// run runs the case of the plan: nothing for a case taken from an earlier
// report, its runs for a distribution case.
func (p *casePlan) run(ctx context.Context, c Case, opts Options) (*freshRuns, error) {
	switch {
	case p.err != nil:
		return nil, p.err
	case p.reuse != nil:
		return &freshRuns{}, nil
	}
	return runDistribution(ctx, c, opts, p)
}

// compare is compareCase for a planned case: the earlier report's case as
// it was, or a distribution case's report with its fresh distribution.
// The status of a distribution case is its group's to set (gate.decide).
func (p *casePlan) compare(c Case, fresh *freshRuns, runErr error) *report.Case {
	if p.reuse != nil && runErr == nil {
		cr := *p.reuse
		return &cr
	}
	cr := newCaseReport(c.Key)
	if p.dist {
		cr.Kind = report.KindDistribution
	}
	if runErr != nil {
		cr.Status, cr.Error = report.StatusError, runErr.Error()
		return cr
	}
	fresh.Dist.Violations = nonNilCounts(fresh.Dist.Violations)
	data, err := fresh.Dist.Marshal()
	if err != nil {
		cr.Status, cr.Error = report.StatusError, err.Error()
		return cr
	}
	cr.Status = report.StatusUnchanged // until its group is decided
	cr.Distribution = &report.Distribution{Runs: p.runs, Baseline: p.frozen, Fresh: data, InfrastructureError: fresh.InfraError}
	cr.Violations = violationLabels(fresh.Dist)
	return cr
}

func nonNilCounts(m map[string]int) map[string]int {
	if m == nil {
		return map[string]int{}
	}
	return m
}

// violationLabels are the confirmed forbidden effects of any of d's runs,
// sorted; nil when none.
func violationLabels(d *stats.Distribution) []string {
	var out []string
	for label := range d.Violations {
		out = append(out, label)
	}
	slices.Sort(out)
	return out
}

// planned yields the cases of s each with its plan, made as the case is
// yielded.
func planned(s CaseStream, plan func(c Case) *casePlan) CaseStream {
	all := s.All
	s.All = func(yield func(Case) bool) {
		for c := range all {
			c.plan = plan(c)
			if !yield(c) {
				return
			}
		}
	}
	return s
}

// gateItem is one case a gate holds until its group is decided.
type gateItem struct {
	cr   *report.Case
	kept *Kept
	// baseline and fresh are a distribution case's, parsed; nil for the
	// others.
	baseline, fresh *stats.Distribution
}

// gate hands a check's case reports on in key order, holding those of a
// group (environment and agent) that has distribution cases until the
// group's last case is in, then deciding the group and setting each
// distribution case's status from the decision.
type gate struct {
	opts   DistributionOptions
	emit   func(cr *report.Case, kept *Kept) error
	held   []gateItem
	groups []*report.GroupDecision
	infra  []stats.KeyedDistribution // every distribution case's fresh runs
	seen   bool                      // a distribution case came
}

func newGate(opts DistributionOptions, emit func(cr *report.Case, kept *Kept) error) *gate {
	return &gate{opts: opts, emit: emit}
}

func sameGroup(a, b *report.Case) bool { return a.Env == b.Env && a.Agent == b.Agent }

// take takes the next case's report.
func (g *gate) take(cr *report.Case, kept *Kept) error {
	if len(g.held) > 0 && !sameGroup(g.held[0].cr, cr) {
		if err := g.flush(); err != nil {
			return err
		}
	}
	if cr.Kind != report.KindDistribution && len(g.held) == 0 {
		return g.emit(cr, kept)
	}
	it := gateItem{cr: cr, kept: kept}
	if cr.Kind == report.KindDistribution {
		g.seen = true
		var err error
		if it.baseline, it.fresh, err = cr.Distribution.Parsed(); err != nil {
			return fmt.Errorf("case %s: %w", cr.Case, err)
		}
	}
	g.held = append(g.held, it)
	return nil
}

// flush decides the held group and hands its cases on.
func (g *gate) flush() error {
	held := g.held
	g.held = nil
	if dec := decideGroup(held, g.opts); dec != nil {
		g.groups = append(g.groups, dec)
	}
	for _, it := range held {
		if it.fresh != nil {
			g.infra = append(g.infra, stats.KeyedDistribution{Key: it.cr.Case, Dist: it.fresh})
		}
		if err := g.emit(it.cr, it.kept); err != nil {
			return err
		}
	}
	return nil
}

// finish decides the last group and returns the gate's report: nil when no
// case was a distribution case.
func (g *gate) finish() (*report.Gate, error) {
	if err := g.flush(); err != nil {
		return nil, err
	}
	if !g.seen {
		return nil, nil
	}
	in, err := stats.Infrastructure(g.infra, g.opts.maxErrors())
	if err != nil {
		return nil, err
	}
	return &report.Gate{Margin: g.opts.Margin, MaxErrors: g.opts.maxErrors(), Groups: g.groups, Infrastructure: in}, nil
}

// decideGroup decides a group's distribution cases among items (the cases
// of one environment and agent, in key order) and sets their statuses: an
// error when every fresh run failed for the infrastructure (nothing can be
// said of the agent), else unchanged when the group shows no change the
// check could detect; when it does, changed and labelled for what its own
// task did (SaidOf): it dropped, fell with the group, rose with it, or
// a run confirmed a forbidden effect; unchanged otherwise. It
// returns nil when no item is a distribution case that ran. It is the one
// decision of a group, for a check and for a merge of shard reports.
func decideGroup(items []gateItem, opts DistributionOptions) *report.GroupDecision {
	var pairs []stats.Pair
	var decided []gateItem
	runs := 0
	for _, it := range items {
		if it.fresh == nil {
			continue
		}
		if it.fresh.Graded() == 0 {
			it.cr.Status, it.cr.Label = report.StatusError, ""
			it.cr.Error = fmt.Sprintf("all %d runs failed for the infrastructure, not the agent", it.fresh.Runs)
			if msg := it.cr.Distribution.InfrastructureError; msg != "" {
				it.cr.Error += ": " + printable(msg) // a report read back may hold anything
			}
			it.cr.Distribution.Gate, it.cr.Distribution.Task, it.cr.Distribution.Said = "", nil, ""
			continue
		}
		pairs = append(pairs, stats.Pair{Task: it.cr.Task, Baseline: it.baseline, Candidate: it.fresh})
		decided = append(decided, it)
		runs = max(runs, it.cr.Distribution.Runs)
	}
	if len(pairs) == 0 && !slices.ContainsFunc(items, func(it gateItem) bool { return it.fresh != nil }) {
		return nil
	}
	first := items[0].cr
	g := &report.GroupDecision{Env: first.Env, Agent: first.Agent, Cases: len(pairs), Runs: runs, Summary: stats.Explanation{Details: []string{}}}
	for _, it := range items {
		if it.fresh != nil && it.fresh.Graded() == 0 {
			g.Cases++
		}
	}
	if len(pairs) == 0 {
		g.Error = "every run failed for the infrastructure: nothing can be said of the agent"
		g.Summary.Line = "no decision: " + g.Error
		return g
	}
	dec, err := stats.Decide(pairs, stats.Options{Margin: opts.Margin})
	if err != nil {
		g.Error = err.Error()
		g.Summary.Line = "no decision: " + g.Error
		for _, it := range decided {
			it.cr.Status, it.cr.Error = report.StatusError, g.Error
		}
		return g
	}
	g.Decision, g.Summary = dec, dec.Summary()
	tasks := map[string]*stats.TaskResult{}
	for i := range dec.PerTask {
		tasks[dec.PerTask[i].Task] = &dec.PerTask[i]
	}
	severe := map[string][]string{}
	for _, f := range dec.Findings {
		if f.Kind == stats.ForbiddenEffect && f.Regression {
			severe[f.Task] = append(severe[f.Task], f.Label)
		}
	}
	for _, it := range decided {
		cr, t := it.cr, tasks[it.cr.Task]
		cr.Distribution.Gate = dec.Verdict
		cr.Distribution.Task = nil
		if t != nil && t.Compared {
			cr.Distribution.Task = t
		}
		cr.Status, cr.Label, cr.Error = report.StatusUnchanged, "", ""
		cr.Distribution.Said = report.SaidOf(dec, t, severe[cr.Task] != nil)
		switch cr.Distribution.Said {
		case report.SaidForbidden, report.SaidDropped, report.SaidFell:
			cr.Status, cr.Label = report.StatusChanged, change.LabelRegression
		case report.SaidRose:
			cr.Status, cr.Label = report.StatusChanged, change.LabelImprovement
		}
	}
	return g
}

// regate decides again the distribution cases of a report whose cases
// came from elsewhere (the shards of a merge), with the options gate (the
// shards' own, nil for the defaults), and sets its gate report; a report
// with no distribution case keeps none.
func regate(r *report.Report, opts DistributionOptions) error {
	g := newGate(opts, func(*report.Case, *Kept) error { return nil })
	for _, cr := range r.Cases {
		if err := g.take(cr, nil); err != nil {
			return err
		}
	}
	rep, err := g.finish()
	if err != nil {
		return err
	}
	r.Gate = rep
	return nil
}

// gateOptionsOf are the options the gate reports of reports were decided
// with: they must agree.
func gateOptionsOf(reports iter.Seq2[string, *report.Gate]) (DistributionOptions, error) {
	var opts DistributionOptions
	var from string
	for path, g := range reports {
		if g == nil {
			continue
		}
		if math.IsNaN(g.MaxErrors) || g.MaxErrors < 0 || g.MaxErrors > 1 {
			return opts, fmt.Errorf("%s: gate.maxErrors %v is not a share from 0 to 1", path, g.MaxErrors)
		}
		o := DistributionOptions{Margin: g.Margin, MaxErrors: g.MaxErrors}
		if o.MaxErrors == 0 {
			o.MaxErrors = -1 // none may be errors
		}
		if err := o.Validate(); err != nil {
			return opts, fmt.Errorf("%s: gate: %w", path, err)
		}
		if from != "" && o != opts {
			return opts, fmt.Errorf("%s was decided with --margin %v --max-errors %v, %s with --margin %v --max-errors %v; merge the reports of one check",
				path, g.Margin, g.MaxErrors, from, opts.Margin, opts.maxErrors())
		}
		opts, from = o, path
	}
	return opts, nil
}
