package oracle

import (
	"context"
	"errors"
	"sync"

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
// the store. Baselines that sel selects but no case has are obsolete. Each
// case is compared as soon as its runs are over, by the worker that ran it,
// and only its report entry is kept (with its fresh artifacts when it does
// not match), so memory does not grow with the runs of the unchanged cases.
func Check(ctx context.Context, store *baseline.Store, cases []Case, sel Selection, opts Options) (*CheckResult, error) {
	res := &CheckResult{Report: newReport(sel, len(cases)), Fresh: map[baseline.Key]baseline.Entry{}, Traces: map[baseline.Key][]byte{}}
	reports := make([]*CaseReport, len(cases))
	var mu sync.Mutex // guards res.Fresh and res.Traces
	eachCase(ctx, cases, opts, true, func(i int, run caseRun) {
		c, fresh := cases[i], run.fresh
		cr, keep := compareCase(store, c, fresh, run.err)
		cr.Elapsed = run.elapsed
		reports[i] = cr
		if keep != keepNothing {
			mu.Lock()
			res.Fresh[c.Key] = fresh.Entry
			if keep == keepTrace {
				res.Traces[c.Key] = fresh.Outcome.Artifacts.Trace
			}
			mu.Unlock()
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, context.Cause(ctx)
	}
	known := make(map[baseline.Key]bool, len(cases))
	for i, c := range cases {
		known[c.Key] = true
		res.Report.Cases = append(res.Report.Cases, reports[i])
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

// What a check keeps of a case's fresh runs.
type keeping int

const (
	keepNothing keeping = iota
	keepFresh           // the fresh artifacts
	keepTrace           // the fresh artifacts and the first run's trace
)

// compareCase reports one case from its fresh runs (or the error that
// stopped them) and the store's baseline, and says what of the fresh runs
// belongs in the check's result.
func compareCase(store *baseline.Store, c Case, fresh *Fresh, runErr error) (*CaseReport, keeping) {
	cr := newCaseReport(c.Key)
	if runErr != nil {
		cr.Status, cr.Error = StatusError, runErr.Error()
		return cr, keepNothing
	}
	cr.NewVerdict = fresh.Outcome.Result.Verdict
	reward := fresh.Outcome.Result.Reward
	cr.NewReward = &reward
	cr.Violations = fresh.Outcome.Result.Violations
	if fresh.Divergence != nil {
		cr.Status, cr.Divergence = StatusNondeterministic, fresh.Divergence
		return cr, keepTrace
	}
	frozen, err := store.ReadLike(c.Key, fresh.Entry)
	switch {
	case errors.Is(err, baseline.ErrNotFound):
		cr.Status = StatusMissing
		return cr, keepTrace
	case err != nil:
		cr.Status, cr.Error = StatusError, err.Error()
		return cr, keepNothing
	}
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
	var old resultFacts
	if r := fresh.Outcome.Result; len(cr.Files) == 0 && r.Verdict != "" {
		// the baseline's result.json holds the fresh result's bytes: no
		// need to decode them
		old = resultFacts{verdict: r.Verdict, reward: &reward, toolErrors: r.ToolErrors}
	} else {
		old = factsOf(frozen.Result)
	}
	cr.OldVerdict, cr.OldReward, cr.OldToolErrors = old.verdict, old.reward, old.toolErrors
	switch {
	case len(cr.Files) == 0:
		cr.Status = StatusUnchanged
		return cr, keepNothing
	case !changed:
		cr.Status = StatusMissing
		return cr, keepFresh
	}
	cr.Status = StatusChanged
	cr.Label = flip(cr.OldVerdict, cr.NewVerdict)
	cr.setToolErrors(frozen.Calls, fresh.Entry.Calls, fresh.Outcome.Artifacts.Trace)
	cr.Checks = checkStates(frozen.Result, fresh.Entry.Result)
	return cr, keepTrace
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
