package oracle

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/internal/secret"
	"github.com/agent-oracle/oracle/oracle/change"
	"github.com/agent-oracle/oracle/oracle/report"
)

// Kept is what a check keeps of the fresh runs of a case that did not
// match its baseline, for --report-dir and --pending.
type Kept struct {
	Entry baseline.Entry // the fresh artifacts
	// Trace is the first run's trace.jsonl, when Traced.
	Trace  []byte
	Traced bool
}

// CheckEach re-runs cases and compares them with the store. It never
// writes to the store. Baselines that sel selects but no case has are
// obsolete. Each case is compared as soon as its runs are over, by the
// worker that ran it, and each gets its report entry, in key order with the
// obsolete baselines in their place, as soon as the cases before it are
// done; kept holds the fresh artifacts of a case that did not match, and is
// nil for the others. Nothing else of a case is kept, so memory does not
// grow with the cases: what grows is what each keeps. The report returned
// has no cases, only what it is a report of and its summary. The first
// error of each stops the check and is returned.
func CheckEach(ctx context.Context, store *baseline.Store, cases CaseStream, sel Selection, opts Options, each func(cr *report.Case, kept *Kept) error) (*report.Report, error) {
	if err := opts.Distribution.Validate(); err != nil {
		return nil, err
	}
	if err := checkRerunBasis(opts); err != nil {
		return nil, err
	}
	rep := newReport(sel, cases.Len)
	rep.Basis = opts.Basis
	if sel.Shard.Count > 0 {
		// only shards are merged, so only they need the fingerprint, which
		// reads every baseline of the whole selection once more
		fp, err := baselinesFingerprint(store, sel)
		if err != nil {
			return nil, err
		}
		rep.Baselines = fp
	}
	dists := map[baseline.Key]bool{} // the keys whose baselines are distributions
	obsolete, err := obsoleteKeys(store, cases, sel, func(k baseline.Key) { dists[k] = true })
	if err != nil {
		return nil, err
	}
	reader := store.Reader()
	var sum report.Summary
	// obsoleteBefore hands on the obsolete keys before k (all of them when
	// k is nil)
	obsoleteBefore := func(k *baseline.Key) error {
		for ; len(obsolete) > 0 && (k == nil || obsolete[0].Compare(*k) < 0); obsolete = obsolete[1:] {
			cr := newCaseReport(obsolete[0])
			cr.Status = report.StatusObsolete
			cr.Baseline, _ = reader.Hash(obsolete[0])
			sum.Add(cr)
			if err := each(cr, nil); err != nil {
				return err
			}
		}
		return nil
	}
	type compared struct {
		cr   *report.Case
		kept *Kept
	}
	// the cases of a group with distribution cases wait for its decision
	g := newGate(opts.Distribution, func(cr *report.Case, kept *Kept) error {
		k := cr.Key()
		if err := obsoleteBefore(&k); err != nil {
			return err
		}
		cr.Error = secret.String(cr.Error) // an agent's or a host's words, as artifacts hold them
		sum.Add(cr)
		return each(cr, kept)
	})
	err = eachCase(ctx, planned(cases, checkPlanner(reader, opts.Distribution, dists)), opts, true, func(c Case, run caseRun) compared {
		cr, keep := compareCase(reader, c, run.fresh, run.err, opts.ShowRedacted)
		cr.Elapsed = run.elapsed
		if cr.Baseline == "" {
			// not compared byte for byte: the baseline's bytes as they are
			cr.Baseline, _ = reader.Hash(c.Key)
		}
		out := compared{cr: cr}
		if keep != keepNothing {
			out.kept = &Kept{Entry: run.fresh.Entry}
			if keep == keepTrace {
				out.kept.Trace, out.kept.Traced = run.fresh.Outcome.Artifacts.Trace, true
			}
		}
		return out
	}, func(c Case, r compared) error { return g.take(r.cr, r.kept) })
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	if err == nil {
		rep.Gate, err = g.finish()
	}
	if err == nil {
		err = obsoleteBefore(nil)
	}
	if err != nil {
		return nil, err
	}
	rep.Summary = sum
	return rep, nil
}

// compareCase reports one case from its fresh runs (or the error that
// stopped them) and the store's baseline, and says what of the fresh runs
// belongs in the check's result; show keeps the redacted values in the
// report.
func compareCase(store *baseline.Reader, c Case, fresh *freshRuns, runErr error, show bool) (*report.Case, keeping) {
	if c.plan != nil {
		return c.plan.compare(c, fresh, runErr), keepNothing
	}
	cr := newCaseReport(c.Key)
	if runErr != nil {
		cr.Status, cr.Error = report.StatusError, runErr.Error()
		return cr, keepNothing
	}
	r := fresh.Outcome.Result
	if r.Infrastructure {
		cr.Status, cr.Error = report.StatusError, infrastructureError(r)
		return cr, keepNothing
	}
	reward := r.Reward
	// the fresh result's facts, from the run: no need to decode them
	now := resultFacts{verdict: r.Verdict, reward: &reward, toolErrors: r.ToolErrors}
	cr.NewVerdict, cr.NewReward, cr.Violations = now.verdict, now.reward, r.Violations
	if fresh.Divergence != nil {
		cr.Status, cr.Divergence = report.StatusNondeterministic, fresh.Divergence
		return cr, keepTrace
	}
	cr.Redacted = fresh.Redaction.report(show)
	frozen, err := store.ReadLike(c.Key, fresh.Entry)
	switch {
	case errors.Is(err, baseline.ErrNotFound):
		cr.Baseline = baseline.NoBaselineHash
		return cr, judge(cr, nil, fresh.Entry, c.files(), now, nil)
	case err != nil:
		cr.Status, cr.Error = report.StatusError, err.Error()
		return cr, keepNothing
	}
	cr.Baseline = baseline.HashEntry(frozen) // the bytes compared
	keep := judge(cr, &frozen, fresh.Entry, c.files(), now, fresh.Outcome.Artifacts.Trace)
	if err := explainRedactions(cr, fresh, &frozen); err != nil {
		cr.Status, cr.Error = report.StatusError, err.Error()
		return cr, keepNothing
	}
	return cr, keep
}

// explainRedactions says, in each changed file of a case, how the rules of
// its fresh runs take part in the differences with its baseline frozen.
func explainRedactions(cr *report.Case, fresh *freshRuns, frozen *baseline.Entry) error {
	if fresh.Redaction == nil {
		return nil
	}
	for _, d := range cr.Files {
		if d.State != change.FileChanged {
			continue
		}
		notes, err := fresh.Redaction.explain(d.File, frozen.File(d.File), fresh.Raw.File(d.File))
		if err != nil {
			return fmt.Errorf("%s: %w", d.File, err)
		}
		d.Redactions = notes
	}
	return nil
}

func newCaseReport(k baseline.Key) *report.Case {
	return &report.Case{Case: k.String(), Env: k.Env, Agent: k.Agent, Task: k.Task}
}

// flip labels a verdict change: regression when a pass stopped passing,
// improvement when a case started to pass.
func flip(old, fresh env.Verdict) change.Label {
	switch {
	case old == "" || fresh == "" || old == fresh:
		return ""
	case old == env.Pass:
		return change.LabelRegression
	case fresh == env.Pass:
		return change.LabelImprovement
	}
	return ""
}

// obsoleteKeys lists the baselines that sel selects but no case has,
// walking the store's keys beside the cases, both in key order, so that
// it holds no list of either; distribution, when set, is told of each key
// whose baseline is a distribution (baseline.Store.KeysNoting).
func obsoleteKeys(store *baseline.Store, cases CaseStream, sel Selection, distribution func(baseline.Key)) ([]baseline.Key, error) {
	next, stop := iter.Pull(cases.All)
	defer stop()
	c, more := next()
	var out []baseline.Key
	for k, err := range store.KeysNoting(distribution) {
		if err != nil {
			return nil, err
		}
		for more && c.Key.Compare(k) < 0 {
			c, more = next()
		}
		if !(more && c.Key == k) && sel.Selects(k) {
			out = append(out, k)
		}
	}
	return out, nil
}
