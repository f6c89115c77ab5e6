package oracle

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/internal/secret"
	"github.com/agent-oracle/oracle/oracle/report"
	"github.com/agent-oracle/oracle/oracle/stats"
)

// RecordStatus is what record did with one case.
type RecordStatus string

const (
	RecordWrote    RecordStatus = "wrote"                             // a new or changed baseline was written
	RecordKept     RecordStatus = "kept"                              // the baseline already held these bytes
	RecordRefused  RecordStatus = "refused"                           // the runs differ: nondeterministic, not frozen
	RecordRemoved  RecordStatus = "removed"                           // an obsolete baseline, removed by --prune
	RecordObsolete              = RecordStatus(report.StatusObsolete) // a baseline with no case, kept
	RecordError                 = RecordStatus(report.StatusError)    // the case could not run or be written
	// RecordNotWritten is a case that ran and agreed but was not written,
	// because another case failed: its baseline, if any, is as it was.
	RecordNotWritten RecordStatus = "not-written"
)

// RecordedCase is one case of a record report.
type RecordedCase struct {
	Case       string             `json:"case"`
	Status     RecordStatus       `json:"status"`
	Verdict    env.Verdict        `json:"verdict,omitempty"`
	Divergence *report.Divergence `json:"divergence,omitempty"`
	// Proposal, for a refused case, is the redaction rules that would
	// make its runs agree; nothing is applied.
	Proposal *Proposal `json:"proposal,omitempty"`
	Error    string    `json:"error,omitempty"`

	// Kind is KindDistribution for a case recorded as a distribution
	// (record --runs N), empty for one recorded byte for byte.
	Kind string `json:"kind,omitempty"`
	// Distribution is a distribution case's counts, as its
	// <TASK>.stats.json holds them.
	Distribution json.RawMessage `json:"distribution,omitempty"`
	// Replaced names the kind of baseline the case had and record
	// replaced with the other ("byte-for-byte" or "distribution"): its
	// files are removed as the new one is written.
	Replaced string `json:"replaced,omitempty"`
}

// RecordReport is the outcome of a record.
type RecordReport struct {
	Cases []RecordedCase `json:"cases"`
	// Groups say, for each environment and agent recorded as
	// distributions, the smallest drop a check of them could detect.
	Groups []RecordedGroup `json:"groups,omitempty"`
	// Infrastructure counts the distribution runs that failed for the
	// infrastructure; when Trouble, nothing was written.
	Infrastructure *stats.Infra `json:"infrastructure,omitempty"`
}

// Count returns how many cases have status s.
func (r *RecordReport) Count(s RecordStatus) int {
	n := 0
	for _, c := range r.Cases {
		if c.Status == s {
			n++
		}
	}
	return n
}

// RecordOptions add pruning to Options.
type RecordOptions struct {
	Options
	// Prune removes the baselines that sel selects but no case has.
	Prune bool
}

// writeJobs is how many goroutines write baselines at once: writing is
// bound by fsync, not by the CPU.
const writeJobs = 8

// Record runs each case at least twice and freezes the artifacts of the
// cases whose runs agree, redacted by their rules (Case.Redact), writing
// only the files that changed. A case whose runs differ once redacted is
// refused, with the rules that would make them agree proposed. When any case fails to run, nothing is written
// (the cases that ran are not-written). When a write fails, record stops
// there: the cases before it are wrote or kept, that case is an error, the
// rest are not-written, and no baseline is pruned. Every case has a
// status. The store is locked for the whole record.
//
// With opts.Distribution.Runs of 2 or more it records every case as a
// distribution instead: its runs' outcomes counted (<TASK>.stats.json),
// however they differ. A case all of whose runs failed for the
// infrastructure is an error, and a record with more such runs than
// opts.Distribution.MaxErrors allows writes nothing. Recording a case as
// the other kind than its baseline's replaces the baseline's files.
func Record(ctx context.Context, store *baseline.Store, stream CaseStream, sel Selection, opts RecordOptions) (*RecordReport, error) {
	if err := opts.Distribution.Validate(); err != nil {
		return nil, err
	}
	rep, err := recordCases(ctx, store, stream, sel, opts)
	if rep != nil {
		for i := range rep.Cases {
			if rep.Cases[i].Status != RecordWrote {
				rep.Cases[i].Replaced = "" // nothing was replaced
			}
		}
	}
	return rep, err
}

// recordCases is Record once its options are valid: the store locked, the
// cases run, their files written together, the obsolete baselines pruned.
func recordCases(ctx context.Context, store *baseline.Store, stream CaseStream, sel Selection, opts RecordOptions) (*RecordReport, error) {
	if opts.Repeat == 1 {
		opts.Repeat = 2 // freezing needs two runs that agree
	}
	unlock, err := store.Lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	// the store is walked before any case runs: a store that cannot be
	// read (a symlink among its folders) is an error while nothing is
	// written yet
	stored := map[baseline.Key]bool{} // the keys whose baselines are distributions
	obsolete, err := obsoleteKeys(store, stream, sel, func(k baseline.Key) { stored[k] = true })
	if err != nil {
		return nil, err
	}

	// the files of each case whose runs agree are written to temporary
	// files as soon as the case is over, and only renamed into place once
	// every case has run; what is kept of a case is its report line
	rg := &recording{batch: store.NewBatch(writeJobs), rep: &RecordReport{Cases: make([]RecordedCase, 0, stream.Len)}}
	reader := store.Reader()
	eachCase(ctx, planned(stream, recordPlan(opts.Distribution.Runs)), opts.Options, false, func(c Case, run caseRun) recorded {
		return recordRun(reader, stored[c.Key], c, run)
	}, func(_ Case, r recorded) error {
		rg.add(r)
		return nil
	})
	if err := ctx.Err(); err != nil {
		rg.batch.Discard()
		return nil, context.Cause(ctx)
	}
	if err := rg.judgeDistributions(reader, stored, opts.Distribution); err != nil {
		rg.batch.Discard()
		return nil, err
	}
	if rg.failed {
		rg.batch.Discard()
		return rg.rep, nil // nothing is written when a case failed to run
	}
	if stop, err := rg.commit(); stop {
		return rg.rep, err
	}
	for _, k := range obsolete {
		rg.rep.Cases = append(rg.rep.Cases, RecordedCase{Case: k.String(), Status: RecordObsolete})
	}
	if opts.Prune {
		pruneObsolete(store, rg.rep)
	}
	return rg.rep, nil
}

// recorded is what is kept of one case that ran: its report line, and the
// files to write or the distribution its runs make.
type recorded struct {
	key   baseline.Key
	rc    RecordedCase
	entry baseline.Entry
	dist  *stats.Distribution
}

// recordRun is the record of case c from its runs: an error, a
// distribution, a refusal or the files to write; dist says whether its
// stored baseline is a distribution.
func recordRun(reader *baseline.Reader, dist bool, c Case, run caseRun) recorded {
	r := recorded{key: c.Key, rc: RecordedCase{Case: c.Key.String()}}
	switch {
	case run.err != nil:
		r.rc.Status, r.rc.Error = RecordError, run.err.Error()
		if c.plan != nil {
			r.rc.Kind = report.KindDistribution
		}
	case run.fresh.Dist != nil:
		r.rc, r.entry = recordDistribution(c.Key, run.fresh)
		r.dist = run.fresh.Dist
	case run.fresh.Outcome.Result.Infrastructure:
		r.rc.Status, r.rc.Error = RecordError, infrastructureError(run.fresh.Outcome.Result)
	case run.fresh.Divergence != nil:
		r.rc.Status, r.rc.Divergence = RecordRefused, run.fresh.Divergence
		r.rc.Verdict = run.fresh.Outcome.Result.Verdict
		r.rc.Proposal = propose(c, run.fresh)
	default:
		r.rc.Status = RecordNotWritten // until it is written or kept
		r.rc.Verdict = run.fresh.Outcome.Result.Verdict
		r.entry = run.fresh.Entry
	}
	if r.rc.Status == RecordNotWritten {
		r.rc.Replaced = replacedKind(reader, c.Key, r.entry, dist)
	}
	return r
}

// recording is what a record gathers as its cases end, in order.
type recording struct {
	batch    *baseline.Batch
	rep      *RecordReport
	at       []int // the case of each write
	dists    []stats.KeyedDistribution
	distKeys []baseline.Key
	failed   bool // a case failed to run: nothing is written
}

// add takes the record of a case that ended: its report line, its files
// into the batch while no case has failed, its distribution.
func (rg *recording) add(r recorded) {
	rg.failed = rg.failed || r.rc.Status == RecordError
	if !rg.failed && r.rc.Status == RecordNotWritten {
		rg.batch.Add(r.key, r.entry)
		rg.at = append(rg.at, len(rg.rep.Cases))
	}
	if r.dist != nil {
		rg.dists, rg.distKeys = append(rg.dists, stats.KeyedDistribution{Key: r.key.String(), Dist: r.dist}), append(rg.distKeys, r.key)
	}
	r.rc.Error = secret.String(r.rc.Error) // an agent's or a host's words, as artifacts hold them
	rg.rep.Cases = append(rg.rep.Cases, r.rc)
}

// judgeDistributions counts the distribution runs that failed for the
// infrastructure and the drop each group could detect, and compares each
// group's new distributions with those they replace (stored: the keys
// whose baselines are distributions); with too many errors, or a group
// record refuses, the record fails.
func (rg *recording) judgeDistributions(reader *baseline.Reader, stored map[baseline.Key]bool, d DistributionOptions) error {
	if rg.dists == nil {
		return nil
	}
	in, err := stats.Infrastructure(rg.dists, d.maxErrors())
	if err != nil {
		return err
	}
	rg.rep.Infrastructure, rg.rep.Groups = &in, recordedGroups(rg.dists, rg.distKeys, d.Detect)
	// too many errors: no baseline is frozen from what is left
	rg.failed = rg.failed || in.Trouble()
	for gi := range rg.rep.Groups {
		g := &rg.rep.Groups[gi]
		var keys []baseline.Key
		var news, olds []*stats.Distribution
		for i, k := range rg.distKeys {
			if k.Env != g.Env || k.Agent != g.Agent {
				continue
			}
			var old *stats.Distribution
			if stored[k] {
				if data, err := reader.ReadStats(k); err == nil {
					old, _ = stats.Parse(data) // an unreadable baseline is replaced without a comparison
				}
			}
			keys, news, olds = append(keys, k), append(news, rg.dists[i].Dist), append(olds, old)
		}
		g.judgeReplacement(keys, news, olds, d.AllowRegressions)
		if g.Refused == "" {
			continue
		}
		rg.failed = true
		for i := range rg.rep.Cases {
			rc := &rg.rep.Cases[i]
			if k, err := baseline.ParseKey(rc.Case); err == nil && k.Env == g.Env && k.Agent == g.Agent && rc.Status == RecordNotWritten {
				rc.Status, rc.Error = RecordRefused, "the group's new distribution is refused: "+g.Refused
			}
		}
	}
	return nil
}

// commit writes the batch and gives each case in it its status; stop
// reports that a write failed, and record stops there.
func (rg *recording) commit() (stop bool, err error) {
	results, stopped, err := rg.batch.Commit()
	for w, i := range rg.at {
		rc := &rg.rep.Cases[i]
		switch {
		case stopped >= 0 && w > stopped:
			// not written: record stopped at an error
		case w == stopped:
			// the cases before are written or kept, this one failed (its
			// files each old or new), the rest not written
			rc.Status, rc.Error = RecordError, err.Error()
			if we, ok := errors.AsType[*baseline.WriteError](err); ok {
				rc.Error = we.Reason() // the line names the case
			}
		case results[w] == baseline.Written:
			rc.Status = RecordWrote
		default:
			rc.Status = RecordKept
		}
	}
	switch {
	case stopped >= 0:
		return true, nil
	case err != nil:
		return true, err
	}
	return false, nil
}

// pruneObsolete removes the baselines of the report's obsolete cases,
// stopping at the first that cannot be removed.
func pruneObsolete(store *baseline.Store, rep *RecordReport) {
	for i := range rep.Cases {
		rc := &rep.Cases[i]
		if rc.Status != RecordObsolete {
			continue
		}
		k, _ := baseline.ParseKey(rc.Case)
		if err := store.Remove(k); err != nil {
			rc.Status, rc.Error = RecordError, err.Error()
			return // the obsolete baselines after it are left
		}
		rc.Status = RecordRemoved
	}
}
