package oracle

import (
	"context"
	"errors"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/env"
)

// CheckResult is a report with the fresh artifacts of the cases that did not
// match, for --report-dir.
type CheckResult struct {
	Report *Report
	// Fresh holds the fresh artifacts of every case that is changed, missing
	// or nondeterministic, by case.
	Fresh map[baseline.Key]baseline.Entry
	// Traces holds the fresh trace.jsonl of the same cases.
	Traces map[baseline.Key][]byte
}

// Check re-runs cases and compares them with the store. It never writes to
// the store. Baselines that sel selects but no case has are obsolete.
func Check(ctx context.Context, store *baseline.Store, cases []Case, sel Selection, opts Options) (*CheckResult, error) {
	res := &CheckResult{Report: newReport(sel, len(cases)), Fresh: map[baseline.Key]baseline.Entry{}, Traces: map[baseline.Key][]byte{}}
	runs := runAll(ctx, cases, opts)
	if err := ctx.Err(); err != nil {
		return nil, context.Cause(ctx)
	}
	known := map[baseline.Key]bool{}
	for i, c := range cases {
		known[c.Key] = true
		cr := newCaseReport(c.Key)
		res.Report.Cases = append(res.Report.Cases, cr)
		run := runs[i]
		cr.Elapsed = run.elapsed
		if run.err != nil {
			cr.Status, cr.Error = StatusError, run.err.Error()
			continue
		}
		fresh := run.fresh
		cr.NewVerdict = fresh.Outcome.Result.Verdict
		reward := fresh.Outcome.Result.Reward
		cr.NewReward = &reward
		cr.Violations = fresh.Outcome.Result.Violations
		keep := func() {
			res.Fresh[c.Key] = fresh.Entry
			res.Traces[c.Key] = fresh.Outcome.Artifacts.Trace
		}
		if fresh.Divergence != nil {
			cr.Status, cr.Divergence = StatusNondeterministic, fresh.Divergence
			keep()
			continue
		}
		frozen, err := store.Read(c.Key)
		switch {
		case errors.Is(err, baseline.ErrNotFound):
			cr.Status = StatusMissing
			keep()
			continue
		case err != nil:
			cr.Status, cr.Error = StatusError, err.Error()
			continue
		}
		old := factsOf(frozen.Result)
		cr.OldVerdict, cr.OldReward, cr.OldToolErrors = old.verdict, old.reward, old.toolErrors
		changed := false
		for _, name := range c.files() {
			if frozen.File(name) == nil {
				// the case wants a file its baseline lacks (an artifact
				// added since it was recorded): missing, record adds it
				cr.Files = append(cr.Files, &FileDiff{File: name, State: FileMissing})
				continue
			}
			if d := DiffFile(name, frozen.File(name), fresh.Entry.File(name)); d != nil {
				cr.Files = append(cr.Files, d)
				changed = true
			}
		}
		switch {
		case len(cr.Files) == 0:
			cr.Status = StatusUnchanged
			continue
		case !changed:
			cr.Status = StatusMissing
			res.Fresh[c.Key] = fresh.Entry
			continue
		}
		cr.Status = StatusChanged
		cr.Label = flip(cr.OldVerdict, cr.NewVerdict)
		cr.ToolErrors = toolErrorsOf(fresh.Outcome.Artifacts.Trace)
		keep()
	}
	obsolete, err := obsoleteKeys(store, known, sel)
	if err != nil {
		return nil, err
	}
	for _, k := range obsolete {
		cr := newCaseReport(k)
		cr.Status = StatusObsolete
		res.Report.Cases = append(res.Report.Cases, cr)
	}
	res.Report.finish()
	return res, nil
}

func newCaseReport(k baseline.Key) *CaseReport {
	return &CaseReport{Case: k.String(), Env: k.Env, Agent: k.Agent, Task: k.Task}
}

// flip labels a verdict change: regression when a pass stopped passing,
// improvement when a case started to pass.
func flip(old, fresh env.Verdict) Label {
	switch {
	case old == "" || fresh == "" || old == fresh:
		return ""
	case old == env.Pass:
		return LabelRegression
	case fresh == env.Pass:
		return LabelImprovement
	}
	return ""
}

// obsoleteKeys lists the baselines that sel selects but no case has.
func obsoleteKeys(store *baseline.Store, known map[baseline.Key]bool, sel Selection) ([]baseline.Key, error) {
	keys, err := store.List()
	if err != nil {
		return nil, err
	}
	var out []baseline.Key
	for _, k := range keys {
		if !known[k] && sel.Selects(k) {
			out = append(out, k)
		}
	}
	return out, nil
}
