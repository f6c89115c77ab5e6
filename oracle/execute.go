package oracle

import (
	"context"
	"iter"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/internal/redact"
	"github.com/agent-oracle/oracle/oracle/change"
	"github.com/agent-oracle/oracle/oracle/report"
	"github.com/agent-oracle/oracle/oracle/stats"
	"github.com/agent-oracle/oracle/runner"
)

// Options are shared by Record and CheckEach.
type Options struct {
	// Repeat is how many times each case runs; its runs must agree. Values
	// below 1 mean 2.
	Repeat int
	// Jobs is how many cases run at once; values below 1 mean 1.
	Jobs int
	// Config is each rollout's budget.
	Config runner.Config
	// Resolve turns a case's agent reference into an agent; nil means
	// runner.Resolve.
	Resolve func(e env.Environment, ref string) (env.Agent, error)
	// Progress, when set, is told as each case finishes.
	Progress Progress
	// ShowRedacted keeps in each case's report the values its rules
	// redacted (Redacted.Shown), for check --show-redacted.
	ShowRedacted bool
	// Distribution tunes the distribution cases (record --runs, and the
	// statistical gate of check).
	Distribution DistributionOptions
	// ModelJobs bounds the rollouts of model agents (openai:, anthropic:;
	// Case.Model) that run at once, whatever Jobs is, so that shards ×
	// ModelJobs bounds what a provider sees; 0 bounds them by Jobs alone.
	ModelJobs int
	// Notice, when set, is told what a rollout's agent says while it runs
	// (env.Notify: a model API's retries), with the case and the run; the
	// text is the agent's and must be escaped before it is shown.
	Notice func(key baseline.Key, run int, text string)
	// Basis, for check, is a digest the caller makes of what the cases run
	// from: the source commit of the environments and agents, the agents'
	// references and the options that shape a rollout ("sha256:…"; empty
	// when the caller cannot tell, as without a known commit). The report
	// keeps it, and a check given an earlier report (Distribution.
	// Previous) refuses one whose basis is another or empty.
	Basis string

	models slots // the slots of ModelJobs, made by eachCase
	// jobs are the slots of Jobs, made by eachCase: a case's worker holds
	// one while it runs the case, and a distribution case's runs take
	// the free ones (slots.share), so Jobs bounds the rollouts at once.
	jobs slots
}

// Progress follows a run of cases: Done is called as each case finishes
// (done of total so far, one call at a time), End once when all have.
type Progress interface {
	Done(done, total int, key baseline.Key)
	End()
}

func (o Options) repeat() int {
	if o.Repeat < 1 {
		return 2
	}
	return o.Repeat
}

// freshRuns is what running a case gave.
type freshRuns struct {
	// Entry is the first run's artifacts, redacted by the case's rules.
	Entry   baseline.Entry
	Outcome *runner.Outcome // the first run's
	// Divergence is set when the runs disagree.
	Divergence *report.Divergence
	// Raw is the first run's artifacts as written, and Diverged those of
	// the run that disagreed with it, for the rules record proposes.
	Raw, Diverged baseline.Entry
	// Redaction is what the case's rules did; nil when they redact none
	// of its files.
	Redaction *runRedaction
	// Dist is the distribution of a distribution case's runs (Entry and
	// Outcome are then empty), and InfraError the first of its runs'
	// infrastructure errors.
	Dist       *stats.Distribution
	InfraError string
}

// diverges says where the files of run (later) first differ from those
// of run 1 (first), or nil when the named files are the same: the one
// check of repeated runs, for check --runs and run --runs.
func diverges(run int, first, later baseline.Entry, files []string) *report.Divergence {
	for _, name := range files {
		if d := change.DiffFile(name, first.File(name), later.File(name)); d != nil {
			return &report.Divergence{Run: run, Diff: d}
		}
	}
	return nil
}

// runCase runs c opts.Repeat times and compares the runs, their artifacts
// redacted by c's rules first. Only the first run builds a trace, and only
// when keepTrace is set: the later runs are compared by their baseline
// files alone. A run its rules cannot redact is an error.
func runCase(ctx context.Context, c Case, opts Options, keepTrace bool) (*freshRuns, error) {
	if c.plan != nil {
		return c.plan.run(ctx, c, opts)
	}
	resolve := opts.Resolve
	if resolve == nil {
		resolve = runner.Resolve
	}
	cfg := opts.Config
	cfg.Agent = c.AgentRef
	var fresh *freshRuns
	redacting := redacts(c.Redact, c.files())
	for i := 1; i <= opts.repeat(); i++ {
		agent, err := resolve(c.Env, c.AgentRef)
		if err != nil {
			return nil, err
		}
		cfg.ResultOnly = i > 1 || !keepTrace
		o, err := opts.rollout(ctx, c, agent, cfg, i)
		if err != nil {
			return nil, err
		}
		raw := baseline.Pick(o.Artifacts.Files(), c.files())
		if o.Result.Infrastructure {
			return &freshRuns{Entry: raw, Outcome: o}, nil // an error, whatever the other runs gave
		}
		e, places := raw, map[string][]redact.Place(nil)
		if redacting {
			if e, places, err = redactEntry(c.Redact, raw, c.files()); err != nil {
				return nil, err
			}
		}
		if fresh == nil {
			fresh = &freshRuns{Entry: e, Outcome: o, Raw: raw}
			if redacting {
				fresh.Redaction = &runRedaction{rules: c.Redact, places: places}
			}
			continue
		}
		if fresh.Divergence = diverges(i, fresh.Entry, e, c.files()); fresh.Divergence != nil {
			fresh.Diverged = raw
			return fresh, nil
		}
		if redacting {
			if err := fresh.Redaction.compare(fresh.Raw, raw, c.files()); err != nil {
				return nil, err
			}
		}
	}
	return fresh, nil
}

type caseRun struct {
	fresh   *freshRuns
	err     error
	elapsed time.Duration // the case's runs, wall clock
}

// CaseStream is a number of cases made one at a time, in key order, so
// that a check or a record holds only the cases in flight.
type CaseStream struct {
	// Len is how many cases All yields.
	Len int
	// All yields the cases sorted by key; it may be called more than once.
	All iter.Seq[Case]
}

// inFlight is how many cases, per job, may be between being started and
// being handed on in order: a slow case holds back at most that many
// finished ones.
const inFlight = 16

// eachCase runs the cases with opts.Jobs workers. As each case's runs end,
// work turns them into what the caller keeps of the case, on the worker's
// goroutine (the rest is garbage at once); emit then gets what work made,
// one case at a time in the cases' order, on the caller's goroutine. At
// most inFlight × opts.Jobs cases are between being started and being
// emitted. A case not started when ctx ends gets ctx's cause; the first
// error of emit stops the cases not yet started, and is returned.
func eachCase[T any](ctx context.Context, cases CaseStream, opts Options, keepTrace bool, work func(c Case, r caseRun) T, emit func(c Case, t T) error) error {
	jobs := max(opts.Jobs, 1)
	opts.models = newSlots(opts.ModelJobs)
	opts.jobs = newSlots(jobs)
	type job struct {
		c   Case
		out chan T
	}
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		finished int
		stopped  atomic.Bool // emit failed: start no more cases
	)
	next := make(chan job)
	order := make(chan job, inFlight*jobs)
	for w := 0; w < min(jobs, max(cases.Len, 1)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				opts.jobs.take()
				start := time.Now()
				f, err := runCase(ctx, j.c, opts, keepTrace)
				elapsed := time.Since(start)
				opts.jobs.give()
				j.out <- work(j.c, caseRun{f, err, elapsed})
				if opts.Progress != nil {
					mu.Lock()
					finished++
					opts.Progress.Done(finished, cases.Len, j.c.Key)
					mu.Unlock()
				}
			}
		}()
	}
	go func() {
		defer close(order)
		defer close(next)
		for c := range cases.All {
			if stopped.Load() {
				return
			}
			j := job{c, make(chan T, 1)}
			order <- j
			if ctx.Err() != nil {
				j.out <- work(c, caseRun{err: context.Cause(ctx)})
				continue
			}
			next <- j
		}
	}()
	var err error
	for j := range order {
		t := <-j.out
		if err == nil {
			if err = emit(j.c, t); err != nil {
				stopped.Store(true)
			}
		}
	}
	wg.Wait()
	if opts.Progress != nil && cases.Len > 0 {
		opts.Progress.End()
	}
	return err
}
