package oracle

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/runner"
)

// Options are shared by Record and Check.
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

// Fresh is what running a case gave.
type Fresh struct {
	Entry   baseline.Entry
	Outcome *runner.Outcome // the first run's
	// Divergence is set when the runs disagree.
	Divergence *Divergence
}

// Divergence says where two runs of a case first differ.
type Divergence struct {
	Run  int       `json:"run"` // the run that differed from run 1
	Diff *FileDiff `json:"diff"`
}

// String names the first differing path.
func (d *Divergence) String() string {
	where := d.Diff.File
	switch {
	case len(d.Diff.Changes) > 0:
		c := d.Diff.Changes[0]
		where += " " + c.Location() + ": " + string(c.From) + " → " + string(c.To)
	case len(d.Diff.Members) > 0:
		m := d.Diff.Members[0]
		where += " " + m.Name() + " " + m.What()
		if len(m.Fields) > 0 {
			f := m.Fields[0]
			if f.Path != "" {
				where += " at " + f.Path
			}
			if f.Was != nil && f.Now != nil {
				where += ": " + string(f.Was.To) + " → " + string(f.Now.To)
			}
		}
	case len(d.Diff.Invisible) > 0:
		where += " (" + d.Diff.Invisible[0].String() + ")"
	}
	return fmt.Sprintf("run %d differs from run 1 at %s", d.Run, where)
}

// Diverges says where the files of run (later) first differ from those
// of run 1 (first), or nil when the named files are the same: the one
// check of repeated runs, for check --runs and run --runs.
func Diverges(run int, first, later baseline.Entry, files []string) *Divergence {
	for _, name := range files {
		if d := DiffFile(name, first.File(name), later.File(name)); d != nil {
			return &Divergence{Run: run, Diff: d}
		}
	}
	return nil
}

// runCase runs c opts.Repeat times and compares the runs. Only the first
// run builds a trace, and only when keepTrace is set: the later runs are
// compared by their baseline files alone.
func runCase(ctx context.Context, c Case, opts Options, keepTrace bool) (*Fresh, error) {
	resolve := opts.Resolve
	if resolve == nil {
		resolve = runner.Resolve
	}
	cfg := opts.Config
	cfg.Agent = c.AgentRef
	var fresh *Fresh
	for i := 1; i <= opts.repeat(); i++ {
		agent, err := resolve(c.Env, c.AgentRef)
		if err != nil {
			return nil, err
		}
		cfg.ResultOnly = i > 1 || !keepTrace
		o, err := runner.Run(ctx, c.Env, c.Task, agent, cfg)
		if err != nil {
			return nil, err
		}
		e := baseline.Pick(o.Artifacts.Files(), c.files())
		if fresh == nil {
			fresh = &Fresh{Entry: e, Outcome: o}
			continue
		}
		if fresh.Divergence = Diverges(i, fresh.Entry, e, c.files()); fresh.Divergence != nil {
			return fresh, nil
		}
	}
	return fresh, nil
}

type caseRun struct {
	fresh   *Fresh
	err     error
	elapsed time.Duration // the case's runs, wall clock
}

// eachCase runs the cases with opts.Jobs workers and hands each case's
// outcome to done as soon as its runs are over, on the worker's goroutine:
// at most opts.Jobs cases are in flight, and what done does not keep is
// garbage at once. A case not started when ctx ends gets ctx's cause.
func eachCase(ctx context.Context, cases []Case, opts Options, keepTrace bool, done func(i int, r caseRun)) {
	jobs := max(opts.Jobs, 1)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		finished int
	)
	next := make(chan int)
	for w := 0; w < min(jobs, len(cases)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				start := time.Now()
				f, err := runCase(ctx, cases[i], opts, keepTrace)
				done(i, caseRun{f, err, time.Since(start)})
				if opts.Progress != nil {
					mu.Lock()
					finished++
					opts.Progress.Done(finished, len(cases), cases[i].Key)
					mu.Unlock()
				}
			}
		}()
	}
	for i := range cases {
		if ctx.Err() != nil {
			done(i, caseRun{err: context.Cause(ctx)})
			continue
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if opts.Progress != nil && len(cases) > 0 {
		opts.Progress.End()
	}
}
