package command

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/oracle"
	"github.com/agent-oracle/oracle/oracle/report"
	"github.com/agent-oracle/oracle/runner"
	"github.com/urfave/cli/v2"
)

// repeatedRuns is the summary of run --runs N, and its --json form.
type repeatedRuns struct {
	FormatVersion int    `json:"formatVersion"`
	Environment   string `json:"environment"`
	Task          string `json:"task"`
	Agent         string `json:"agent"`
	// Sandbox is how the exec agent was contained; absent for others.
	Sandbox    runner.SandboxMode `json:"sandbox,omitempty"`
	Runs       int                `json:"runs"`
	Passed     int                `json:"passed"`
	Errors     int                `json:"errors,omitempty"` // runs that failed for the infrastructure: not graded
	Reward     rewardStats        `json:"reward"`
	Violations violations         `json:"violations"`
	Identical  bool               `json:"identical"`
	Compared   []string           `json:"compared"`
	Divergence *report.Divergence `json:"divergence,omitempty"`
	Each       []oneRun           `json:"each"`

	// Redacted says that the artifacts were compared once redacted by the
	// environment's rules.
	Redacted bool `json:"redacted,omitempty"`
}

type rewardStats struct {
	Mean  float64 `json:"mean"`
	Best  float64 `json:"best"`
	Worst float64 `json:"worst"`
}

// violations counts the runs with a confirmed forbidden effect; they are
// never folded into an average.
type violations struct {
	Runs   int      `json:"runs"`   // runs with at least one
	Labels []string `json:"labels"` // the distinct labels, sorted
}

type oneRun struct {
	RunID             string      `json:"runId"`
	RunDir            string      `json:"runDir"`
	Verdict           env.Verdict `json:"verdict"`
	Reward            float64     `json:"reward"`
	TerminationReason string      `json:"terminationReason"`
	ToolCalls         int         `json:"toolCalls"`
	Violations        []string    `json:"violations"`
}

// repeatRuns rolls the agent ref names through task n times, each from a
// fresh world and with a fresh agent, writes every run's folder, and prints
// the summary. It exits 0 when every run passed, 1 otherwise.
func (o *runOptions) repeatRuns(c *cli.Context, res agentResolver, e env.Environment, task env.Task, ref string, n int) error {
	cfg := runner.Config{MaxToolCalls: o.MaxToolCalls, Timeout: o.Timeout, Agent: ref}
	frozen, err := oracle.EnvFrozen(projectDir(c), e)
	if err != nil {
		return err
	}
	sum := &repeatedRuns{FormatVersion: FormatVersion, Environment: e.Name(), Task: task.ID, Agent: ref, Runs: n, Identical: true, Compared: frozen.Files, Redacted: frozen.Redact.Len() > 0, Violations: violations{Labels: []string{}}}
	text := !o.JSON
	st := newStyle(c, c.App.Writer)
	if text {
		fmt.Fprintf(c.App.Writer, "%s %s · %s · agent %s · %d runs\n", safe(e.Name()), st.Bold(safe(task.ID)), safe(task.Title), safe(ref), n)
	}
	var first *runner.Outcome
	labels := map[string]bool{}
	for i := 1; i <= n; i++ {
		agent, err := res.Resolve(e, ref)
		if err != nil {
			return err
		}
		sum.Sandbox = sandboxOf(agent)
		o, err := runner.Run(runNotices(c, fmt.Sprintf("%s/%s run %d", e.Name(), task.ID, i)), e, task, agent, cfg)
		if err != nil {
			return err
		}
		dir, err := runner.WriteRun(filepath.Join(projectDir(c), runner.RunsDir), o)
		if err != nil {
			return err
		}
		r := o.Result
		one := oneRun{RunID: o.RunID, RunDir: dir, Verdict: r.Verdict, Reward: r.Reward, TerminationReason: r.TerminationReason, ToolCalls: r.ToolCalls, Violations: r.Violations}
		if one.Violations == nil {
			one.Violations = []string{}
		}
		sum.Each = append(sum.Each, one)
		if r.Passed {
			sum.Passed++
		}
		if r.Infrastructure {
			sum.Errors++
		}
		if len(r.Violations) > 0 {
			sum.Violations.Runs++
			for _, l := range r.Violations {
				labels[l] = true
			}
		}
		if first == nil {
			first = o
			sum.Reward = rewardStats{Best: r.Reward, Worst: r.Reward}
		} else {
			sum.Reward.Best = math.Max(sum.Reward.Best, r.Reward)
			sum.Reward.Worst = math.Min(sum.Reward.Worst, r.Reward)
			if sum.Divergence == nil {
				if sum.Divergence, err = frozen.Diverges(i, first.Artifacts.Files(), o.Artifacts.Files()); err != nil {
					return err
				}
				sum.Identical = sum.Divergence == nil
			}
		}
		sum.Reward.Mean += r.Reward
		if text {
			fmt.Fprintf(c.App.Writer, "  run %d  %s · reward %s · %s, %s · %s · %s\n",
				i, resultText(st, r), formatReward(r.Reward), plural(r.ToolCalls, "tool call"), plural(r.ToolErrors, "error"), safe(string(r.TerminationReason)), safe(dir))
			if r.Error != nil {
				fmt.Fprintf(c.App.Writer, "         %s %s\n", st.Bad("error:"), safe(*r.Error))
			}
		}
	}
	sum.Reward.Mean = math.Round(sum.Reward.Mean/float64(n)*1e4) / 1e4
	for l := range labels {
		sum.Violations.Labels = append(sum.Violations.Labels, l)
	}
	sort.Strings(sum.Violations.Labels)
	if text {
		printRepeated(c.App.Writer, st, sum)
	} else if err := writeJSON(c.App.Writer, sum); err != nil {
		return err
	}
	if sum.Errors > 0 {
		fmt.Fprintf(c.App.ErrWriter, "error: %s of %d failed for the infrastructure, not the agent, and were not graded\n", plural(sum.Errors, "run"), n)
		return exitCode(ExitTrouble)
	}
	if sum.Passed < n {
		return exitCode(ExitChanged)
	}
	return nil
}

func printRepeated(w io.Writer, st *style, s *repeatedRuns) {
	passed := fmt.Sprintf("%d of %d runs", s.Passed, s.Runs)
	if s.Passed == s.Runs {
		passed = st.Good(passed)
	} else {
		passed = st.Bad(passed)
	}
	fmt.Fprintf(w, "passed: %s\n", passed)
	if s.Errors > 0 {
		fmt.Fprintf(w, "errors: %s failed for the infrastructure, not graded\n", st.Bad(plural(s.Errors, "run")))
	}
	fmt.Fprintf(w, "reward: mean %s, best %s, worst %s\n", formatReward(s.Reward.Mean), formatReward(s.Reward.Best), formatReward(s.Reward.Worst))
	v := fmt.Sprintf("violations: %d of %d runs had a confirmed forbidden effect", s.Violations.Runs, s.Runs)
	if s.Violations.Runs > 0 {
		v = st.Bad(v) + " (" + safe(strings.Join(s.Violations.Labels, "; ")) + ")"
	}
	fmt.Fprintln(w, v)
	switch {
	case s.Identical:
		verb := "were"
		if len(s.Compared) == 1 {
			verb = "was"
		}
		redacted := ""
		if s.Redacted {
			redacted = " once redacted"
		}
		fmt.Fprintf(w, "identical: yes, %s %s byte-identical%s across the %d runs\n", fileList(s.Compared), verb, redacted, s.Runs)
	default:
		fmt.Fprintf(w, "identical: %s, %s\n", st.Warn("no"), safe(s.Divergence.String()))
	}
}

// fileList joins file names as prose: "a, b and c".
func fileList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
