package oracle

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/internal/cassette"
	"github.com/agent-oracle/oracle/oracle/stats"
	"github.com/agent-oracle/oracle/runner"
)

// Model reports whether the case's agent is behind a model provider's API
// (openai:MODEL, anthropic:MODEL), whose bytes rarely repeat and whose
// rollouts ModelJobs bounds.
func (c Case) Model() bool {
	return env.IsModel(c.Reference())
}

// slots bounds the rollouts of model agents that run at once; nil bounds
// nothing.
type slots chan struct{}

func newSlots(n int) slots {
	if n < 1 {
		return nil
	}
	return make(slots, n)
}

// take waits for a slot; give frees it.
func (s slots) take() {
	if s != nil {
		s <- struct{}{}
	}
}

func (s slots) give() {
	if s != nil {
		<-s
	}
}

// share runs work on the caller's goroutine, which holds a slot of s, and
// on up to extra more goroutines as slots come free: each takes a slot,
// runs work and frees it. work takes its share of a task list until none
// is left; a goroutine still waiting for a slot once the caller's work has
// returned gives up. share returns when every work has.
func (s slots) share(extra int, work func()) {
	extra = min(extra, cap(s)-1)
	if extra < 1 {
		work()
		return
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range extra {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case s <- struct{}{}:
			case <-done:
				return
			}
			defer s.give()
			work()
		}()
	}
	work()
	close(done)
	wg.Wait()
}

// rollout runs one rollout of c's agent: it waits for a slot when c's agent
// is a model agent and ModelJobs bounds them, and passes the notices of
// the rollout (a model API's retries) to Notice, naming the case and the
// run.
func (o Options) rollout(ctx context.Context, c Case, agent env.Agent, cfg runner.Config, run int) (*runner.Outcome, error) {
	if o.models != nil && c.Model() {
		select {
		case o.models <- struct{}{}:
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
		defer func() { <-o.models }()
	}
	if o.Notice != nil {
		ctx = withNotice(ctx, o.Notice, c.Key, run)
	}
	return runner.Run(withCassette(ctx, c, run), c.Env, c.Task, agent, cfg)
}

// withCassette is ctx for run of c: the model clients of its agent keep
// their exchanges in the cassette of the case, a distribution's in one a
// run (internal/cassette).
func withCassette(ctx context.Context, c Case, run int) context.Context {
	if c.plan == nil || !c.plan.dist {
		run = 0 // the repeated runs of a byte case replay one cassette
	}
	return cassette.WithIdentity(ctx, cassette.Identity{Env: c.Key.Env, Agent: c.Key.Agent, Task: c.Key.Task, Run: run})
}

// withNotice is ctx with the notices of run of the case key passed to
// notice. (A function of its own: a closure in rollout would make every
// rollout allocate what it captures, notices or not.)
func withNotice(ctx context.Context, notice func(baseline.Key, int, string), key baseline.Key, run int) context.Context {
	return env.WithNotices(ctx, func(text string) { notice(key, run, text) })
}

// runDistribution runs the case of plan p p.runs times, each from a fresh
// world with a fresh agent, and counts the outcomes: a run that failed for
// the infrastructure is an error, never graded. The runs share the free
// slots of Jobs (slots.share), so a check of few tasks × many runs is not
// one rollout at a time; what they count does not depend on the order they
// end in. The runs an earlier check made (p.prev) are added. An error of
// the runner (a world that cannot be made, a cancelled check) stops the
// case: the error of the earliest run that had one is returned.
func runDistribution(ctx context.Context, c Case, opts Options, p *casePlan) (*freshRuns, error) {
	resolve := opts.Resolve
	if resolve == nil {
		resolve = runner.Resolve
	}
	cfg := opts.Config
	cfg.Agent, cfg.ResultOnly = c.AgentRef, true
	var (
		outcomes = make([]stats.Run, p.runs)
		infra    = make([]string, p.runs) // each run's infrastructure error
		errs     = make([]error, p.runs)
		next     atomic.Int64
		failed   atomic.Bool
	)
	opts.jobs.share(p.runs-1, func() {
		for !failed.Load() {
			i := int(next.Add(1))
			if i > p.runs {
				return
			}
			agent, err := resolve(c.Env, c.AgentRef)
			var o *runner.Outcome
			if err == nil {
				o, err = opts.rollout(ctx, c, agent, cfg, i)
			}
			if err != nil {
				errs[i-1] = err
				failed.Store(true)
				return
			}
			outcomes[i-1] = outcomeOf(o.Result)
			if o.Result.Infrastructure && o.Result.Error != nil {
				infra[i-1] = printable(*o.Result.Error)
			}
		}
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	fresh := &freshRuns{}
	for _, msg := range infra {
		if msg != "" {
			fresh.InfraError = msg
			break
		}
	}
	d, err := stats.Build(outcomes)
	if err != nil {
		return nil, err
	}
	if p.prev != nil {
		if d, err = stats.Add(p.prev, d); err != nil {
			return nil, err
		}
	}
	fresh.Dist = d
	return fresh, nil
}

// outcomeOf is what a distribution counts of a run's result.
func outcomeOf(r *runner.Result) stats.Run {
	if r.Infrastructure {
		return stats.Run{Error: true}
	}
	return stats.Run{Verdict: r.Verdict, Termination: r.TerminationReason, Checks: stats.ChecksOf(r.Checks), Violations: r.Violations, Reward: r.Reward}
}

// infrastructureError is the error of a byte-for-byte case's run that
// failed for the infrastructure: not graded, not compared.
func infrastructureError(r *runner.Result) string {
	msg := "the run failed for the infrastructure, not the agent"
	if r.Error != nil {
		msg += ": " + printable(*r.Error)
	}
	return msg
}

// printable is text from an agent or a model API for a report's error
// line: as it is when a terminal shows it as it is, else quoted with its
// control characters escaped.
func printable(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return strconv.Quote(s)
	}
	return s
}
