package command

import (
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"sync"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/internal/safeio"
	"github.com/agent-oracle/oracle/oracle"
	"github.com/agent-oracle/oracle/oracle/report"
	"github.com/agent-oracle/oracle/oracle/stats"
	"github.com/agent-oracle/oracle/runner"
	"github.com/urfave/cli/v2"
)

// The flags of distribution cases: record --runs N freezes a case whose
// agent's bytes never repeat (a model) as the counts of N runs' outcomes,
// and check decides over the tasks of each environment and agent whether
// its pass rate moved beyond the runs' noise (docs/statistics.md).

// gateOptions are the flags of distribution cases.
type gateOptions struct {
	fs *flags

	Runs      int
	Detect    float64 // record's
	Margin    float64 // check's
	MaxErrors float64
	RerunFrom string // check's
	ModelJobs int
	// AllowRegressions is record's: write distributions it would refuse
	AllowRegressions bool
}

// recordFlags adds record's flags for distribution cases.
func (o *gateOptions) recordFlags(fs *flags) {
	o.fs = fs
	fs.Int(&o.Runs, &cli.IntFlag{Name: "runs", Aliases: []string{"n"}, DefaultText: "byte for byte", Usage: "record each case as a distribution: `N` runs (2 or more), each from a fresh world, counted (verdicts, termination reasons, checks, violations, rewards) in <TASK>.stats.json instead of the artifacts' bytes; for agents whose bytes never repeat (models)"})
	fs.Float64(&o.Detect, &cli.Float64Flag{Name: "detect", DefaultText: "none", Usage: "with --runs: warn when a check of the recorded tasks × N runs could not detect a drop in pass rate of `SHARE` (e.g. 0.1 for 10 points), and say the runs that would"})
	fs.Bool(&o.AllowRegressions, &cli.BoolFlag{Name: "allow-regressions", Usage: "with --runs: write the new distributions even when a check would call them a regression against those they replace, one holds a confirmed forbidden effect, or one has fewer than 2 graded runs (record refuses them otherwise, and prints the comparison either way)"})
	o.maxErrorsFlag(fs)
	o.modelJobsFlag(fs)
}

// checkFlags adds check's flags for distribution cases.
func (o *gateOptions) checkFlags(fs *flags) {
	o.fs = fs
	fs.Int(&o.Runs, &cli.IntFlag{Name: "runs", Aliases: []string{"n"}, DefaultText: "as recorded", Usage: "run each distribution case `N` times; byte-for-byte cases run --repeat times"})
	fs.Float64(&o.Margin, &cli.Float64Flag{Name: "margin", DefaultText: "0", Usage: "a change in mean pass rate of distribution cases within `SHARE` (e.g. 0.05 for 5 points) is no change"})
	o.maxErrorsFlag(fs)
	fs.String(&o.RerunFrom, &cli.StringFlag{Name: "rerun-from", Usage: "run again only what was an error in the JSON report (--format json) of an earlier check at `REPORT`: its cases that were errors, and a distribution case's runs that failed for the infrastructure; the other cases are taken from the report when their baselines are as it saw them, and the report's selection, shard and basis (the CI's commit, the agents, the options) are checked"})
	o.modelJobsFlag(fs)
}

func (o *gateOptions) maxErrorsFlag(fs *flags) {
	fs.Float64(&o.MaxErrors, &cli.Float64Flag{Name: "max-errors", Value: stats.DefaultMaxErrors, Usage: "`SHARE` of the runs of distribution cases that may fail for the infrastructure (an unreachable model API, an exhausted quota, a missing command) before the result is trouble (exit 2); such runs are never graded"})
}

func (o *gateOptions) modelJobsFlag(fs *flags) {
	fs.Int(&o.ModelJobs, &cli.IntFlag{Name: "model-jobs", DefaultText: "--jobs", Usage: "rollouts of openai: and anthropic: agents run at once, at most; the bound is this process's, so shards × `N` is what the provider sees"})
}

// apply checks the flags of distribution cases and sets them in opts.
func (o *gateOptions) apply(c *cli.Context, opts *oracle.Options) error {
	d := oracle.DistributionOptions{Runs: o.Runs, Margin: o.Margin, Detect: o.Detect, AllowRegressions: o.AllowRegressions}
	if o.fs.isSet(c, &o.Runs) && d.Runs < 1 {
		return usageError("--runs %d: want a whole number of at least 1", d.Runs)
	}
	if o.fs.isSet(c, &o.ModelJobs) && o.ModelJobs < 1 {
		return usageError("--model-jobs %d: want a whole number of at least 1", o.ModelJobs)
	}
	share := o.MaxErrors
	switch {
	case math.IsNaN(share) || share < 0 || share > 1:
		return usageError("--max-errors %v: want a share of the runs from 0 to 1, such as 0.1 for 10%%", share)
	case share == 0:
		d.MaxErrors = -1 // none may be errors
	default:
		d.MaxErrors = share
	}
	if o.fs.isSet(c, &o.Margin) && (math.IsNaN(d.Margin) || d.Margin < 0 || d.Margin >= 1) {
		return usageError("--margin %v: want a share of pass rate from 0 to below 1, such as 0.05 for 5 points", d.Margin)
	}
	if o.fs.isSet(c, &o.Detect) && (math.IsNaN(d.Detect) || d.Detect <= 0 || d.Detect >= 1) {
		return usageError("--detect %v: want a drop in pass rate above 0 and below 1, such as 0.1 for 10 points", d.Detect)
	}
	opts.Distribution = d
	opts.ModelJobs = o.ModelJobs
	opts.Notice = noticePrinter(c.App.ErrWriter, isTerminal(c.App.ErrWriter))
	return nil
}

// noticePrinter prints what a rollout's agent says while it runs (a model
// API's retries), one escaped line each as it happens, on stderr.
func noticePrinter(w io.Writer, terminal bool) func(key baseline.Key, run int, text string) {
	var mu sync.Mutex
	return func(key baseline.Key, run int, text string) {
		mu.Lock()
		defer mu.Unlock()
		clear := ""
		if terminal {
			clear = "\r\033[K" // the progress line, which the next case writes again
		}
		fmt.Fprintf(w, "%snotice: %s run %d: %s\n", clear, key, run, printable(text))
	}
}

// printGate prints what a check's gate says on stderr beyond the report:
// the trouble of too many infrastructure errors.
func printGate(w io.Writer, program string, g *report.Gate) int {
	if err := g.Trouble(); err != nil {
		fmt.Fprintf(w, "error: %v; %s check --rerun-from REPORT runs only the errors of a --format json report again\n", err, program)
		return ExitTrouble
	}
	return ExitOK
}

// printRecordGroups says, after a record of distribution cases, how small
// a drop a check of each group could detect, and warns when that is above
// --detect.
func printRecordGroups(w io.Writer, rep *oracle.RecordReport) {
	for _, g := range rep.Groups {
		fmt.Fprintf(w, "%s: %s\n", g.Name(), g.Sentence)
		if g.Comparison != nil {
			fmt.Fprintf(w, "%s: against the distributions it replaces: %s", g.Name(), g.Comparison)
		}
		if g.Refused != "" {
			fmt.Fprintf(w, "error: %s: nothing was written: %s; give --allow-regressions to record it anyway\n", g.Name(), safe(g.Refused))
		} else if g.SuggestRuns > 0 {
			fmt.Fprintf(w, "%s: every check compares with this baseline, so its noise is in all of them: --runs %d (twice a check's) halves its share\n", g.Name(), g.SuggestRuns)
		}
		if !g.AboveDetect {
			continue
		}
		fix := fmt.Sprintf("--runs %d would", g.RunsForDetect)
		if g.DetectError != "" {
			fix = "no number of runs would (" + g.DetectError + ")"
		}
		fmt.Fprintf(w, "warning: %s: a check could not detect a drop of %s points (--detect %v); %s\n",
			g.Name(), strconv.FormatFloat(100*g.Detect, 'f', -1, 64), g.Detect, fix)
	}
}

// rerunFrom reads --rerun-from: the earlier report whose errors the check
// runs again, whose selection and shard the check takes (the selection
// flags are refused beside it).
func (o *gateOptions) rerunFrom(c *cli.Context, cases *caseOptions, sel oracle.Selection, opts *oracle.Options) (oracle.Selection, error) {
	path := o.RerunFrom
	if path == "" {
		return sel, nil
	}
	if flag := cases.selectionGiven(c); flag != "" {
		return sel, usageError("--rerun-from checks the selection of its report, so %s selects nothing; the report says what it holds", flag)
	}
	data, err := safeio.ReadFile(path)
	if err != nil {
		return sel, fmt.Errorf("rerun: %w", err)
	}
	r, err := oracle.ParseReport(data, path, "rerun")
	if err != nil {
		return sel, err
	}
	sel = oracle.Selection{Envs: r.Selection.Envs, Agents: r.Selection.Agents, Tasks: r.Selection.Tasks}
	if r.Shard != "" {
		if sel.Shard, err = oracle.ParseShard(r.Shard); err != nil {
			return sel, err
		}
	}
	opts.Distribution.Previous = r
	return sel, nil
}

// recordRuns reads record's --runs: N ≥ 2 records every case as a
// distribution.
func (o *gateOptions) recordRuns(c *cli.Context, cases *caseOptions, opts *oracle.Options) error {
	if err := o.apply(c, opts); err != nil {
		return err
	}
	runs := opts.Distribution.Runs
	given := o.fs.isSet(c, &o.Runs)
	switch {
	case given && runs < 2:
		return usageError("--runs %d: a distribution is recorded from 2 runs or more (10 is a common start); without --runs a case is recorded byte for byte", runs)
	case given && cases.fs.isSet(c, &cases.Repeat):
		return usageError("--runs records distributions, whose runs are not compared with each other, so --repeat does nothing; give one of them")
	case o.fs.isSet(c, &o.Detect) && !given:
		return usageError("--detect is about distributions; give --runs N too")
	}
	return nil
}

// warnModelBytes warns, once for each environment and agent, when cases of
// a model agent are recorded byte for byte: its bytes rarely repeat, so
// record refuses them as nondeterministic or a check finds them changed.
func warnModelBytes(w io.Writer, selected *oracle.Selected) {
	var last baseline.Key
	for c := range selected.Cases.All {
		if !c.Model() || (c.Key.Env == last.Env && c.Key.Agent == last.Agent) {
			continue
		}
		last = c.Key
		fmt.Fprintf(w, "warning: %s/%s is a model agent (%s): a model's bytes rarely repeat; record it as a distribution with --runs N (e.g. --runs 10)\n",
			c.Key.Env, c.Key.Agent, printable(c.Reference()))
	}
}

// recordedNote is what a record line says of a distribution case and of a
// case whose baseline changed kind.
func recordedNote(rc oracle.RecordedCase) string {
	note := ""
	if rc.Distribution != nil {
		if d, err := stats.Parse(rc.Distribution); err == nil {
			v := d.Verdicts
			note = fmt.Sprintf(" (distribution of %d runs: %d pass, %d fail", d.Runs, v.Pass, v.Fail)
			if v.Inconclusive > 0 {
				note += fmt.Sprintf(", %d inconclusive", v.Inconclusive)
			}
			if v.Error > 0 {
				note += fmt.Sprintf(", %d errors", v.Error)
			}
			note += ")"
		}
	}
	if rc.Replaced != "" {
		note += " replaces its " + rc.Replaced + " baseline"
	}
	return note
}

// resultText is a run's verdict as run prints it: "error (infrastructure,
// not graded)" for a run that failed for the infrastructure.
func resultText(s *style, r *runner.Result) string {
	if r.Infrastructure {
		return s.Bad("error (infrastructure, not graded)")
	}
	return verdictText(s, r.Verdict)
}

// runNotices is the command's context with what a rollout's agent says
// while it runs (a model API's retries) printed on stderr, escaped, one
// line each, naming what.
func runNotices(c *cli.Context, what string) context.Context {
	w := c.App.ErrWriter
	return env.WithNotices(c.Context, func(text string) {
		fmt.Fprintf(w, "notice: %s: %s\n", what, printable(text))
	})
}

// printInfrastructure is run's output for a rollout that failed for the
// infrastructure: no checks and no reward, which would grade what the
// agent never got to do.
func printInfrastructure(w io.Writer, s *style, r *runner.Result, dir string) {
	fmt.Fprintf(w, "%s · %s, %s · %s\n", resultText(s, r), plural(r.ToolCalls, "tool call"), plural(r.ToolErrors, "error"), r.TerminationReason)
	if r.Error != nil {
		fmt.Fprintf(w, "%s %s\n", s.Bad("error:"), printable(*r.Error))
	}
	fmt.Fprintf(w, "run: %s\n", dir)
}
