package command

import (
	"encoding/json"
	"fmt"
	"github.com/agent-oracle/oracle/internal/cassette"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/oracle"
	"github.com/agent-oracle/oracle/runner"
	"github.com/urfave/cli/v2"
)

// schemeList lists the agent reference schemes for help: "exec:COMMAND,
// module:PATH, … or anthropic:MODEL".
func schemeList() string {
	u := env.SchemeUsages(nil)
	return strings.Join(u[:len(u)-1], ", ") + " or " + u[len(u)-1]
}

// runOptions are run's flags.
type runOptions struct {
	flags
	Env, Task, Agent string
	MaxToolCalls     int
	Timeout          time.Duration
	JSON             bool
	Runs             int
	agents           agentOptions
}

func runCommand(envs Environments) *cli.Command {
	o := &runOptions{}
	o.String(&o.Env, &cli.StringFlag{Name: envFlag, Aliases: []string{"e"}, Usage: "environment `name` (default: the one that has the task)"})
	o.String(&o.Task, &cli.StringFlag{Name: "task", Aliases: []string{"t"}, Usage: "task `id`, e.g. TASK-002 (required, unless a replay: trace names it in its run_start or the run.json beside it)"})
	o.String(&o.Agent, &cli.StringFlag{Name: "agent", Aliases: []string{"a"}, Usage: "agent: a built-in `name`, " + schemeList() + " (default: the environment's reference agent)"})
	o.Int(&o.MaxToolCalls, &cli.IntFlag{Name: "max-tool-calls", Value: runner.DefaultMaxToolCalls, Usage: "tool-call budget"})
	o.Duration(&o.Timeout, &cli.DurationFlag{Name: "timeout", Value: runner.DefaultTimeout, Usage: "time budget"})
	o.Bool(&o.JSON, &cli.BoolFlag{Name: "json", Usage: "print the outcome as JSON"})
	o.Int(&o.Runs, &cli.IntFlag{Name: "runs", Aliases: []string{"n"}, Value: 1, Usage: "roll out `N` times, each from a fresh world, and summarise: passes, mean, best and worst reward, violations, and whether the artifacts the environment freezes (its manifest's \"baselines\"; by default result.json, state-diff.json, calls.json) were byte-identical; every run's folder is written"})
	o.agents.envFlag(&o.flags)
	o.agents.sandboxFlags(&o.flags)
	o.agents.modelFlags(&o.flags)
	return &cli.Command{
		Name:      "run",
		Usage:     "roll one agent through one task and grade it",
		ArgsUsage: " ",
		Description: "Runs the agent through the task in a fresh world, prints each check, the verdict and the reward,\n" +
			"and writes result.json, state-diff.json, calls.json, run.json and trace.jsonl to .silo/runs/<runId>/.\n" +
			"With --runs N it rolls out N times, each from a fresh world, writes every run's folder, and\n" +
			"summarises: passes, mean, best and worst reward, violations, and whether the runs were identical.\n" +
			"An exec:COMMAND agent runs in an empty folder of its own: name its files by absolute path. Under the\n" +
			"sandbox (--sandbox, bubblewrap) it sees the files read-only, without the project, /proc of the runner\n" +
			"or the network (--agent-net); docs/protocol.md says what it sees.\n" +
			"Exit status: 0 the task passed (every run did), 1 it did not, 2 trouble.",
		Flags:  o.list,
		Action: func(c *cli.Context) error { return o.run(c, envs) },
	}
}

// run rolls the agent through the task, once or --runs times.
func (o *runOptions) run(c *cli.Context, envs Environments) error {
	if c.NArg() > 0 {
		return usageError("run takes no arguments, got %q; name the task with --task", c.Args().First())
	}
	if err := positive(&o.flags, &o.MaxToolCalls, &o.Timeout, &o.Runs); err != nil {
		return err
	}
	folder, err := project(c)
	if err != nil {
		return err
	}
	cat, err := loadCatalog(envs)
	if err != nil {
		return err
	}
	envName, taskID := o.Env, o.Task
	if path, ok := env.CutScheme(o.Agent, env.ReplayScheme); ok && path != "" && (envName == "" || taskID == "") {
		// a trace names its environment and task (its run_start, or
		// the original runner's run.json beside it)
		rec, err := runner.ReadTrace(path)
		if err != nil {
			return err
		}
		if envName == "" {
			envName = rec.Environment
		}
		if taskID == "" {
			taskID = rec.Task
		}
	}
	if taskID == "" {
		return usageError("name the task with --task, e.g. --task TASK-002")
	}
	if envName != "" {
		if err := oracle.CheckProjectEnvs(folder, cat.envs, []string{envName}); err != nil {
			return err
		}
	}
	e, task, err := cat.task(envName, taskID)
	if err != nil {
		return err
	}
	ref := o.Agent
	if ref == "" {
		if ref, err = defaultAgent(e); err != nil {
			return err
		}
	}
	res, err := o.agents.resolver(c)
	if err != nil {
		return err
	}
	if path, ok := env.CutScheme(ref, env.ReplayScheme); ok && path != "" {
		rec, err := runner.ReadTrace(path)
		if err != nil {
			return err
		}
		if _, _, err := rec.Target(path, e.Name(), task.ID); err != nil {
			return targetFix(err)
		}
	}
	agent, err := res.Resolve(e, ref)
	if err != nil {
		return err
	}
	if n := o.Runs; n > 1 {
		return o.repeatRuns(c, res, e, task, ref, n)
	}
	ctx := cassette.WithIdentity(runNotices(c, e.Name()+"/"+task.ID), cassette.Identity{Env: e.Name(), Agent: ref, Task: task.ID})
	out, err := runner.Run(ctx, e, task, agent, runner.Config{
		MaxToolCalls: o.MaxToolCalls, Timeout: o.Timeout, Agent: ref,
	})
	if err != nil {
		return err
	}
	dir, err := runner.WriteRun(filepath.Join(folder, runner.RunsDir), out)
	if err != nil {
		return err
	}
	if o.JSON {
		err = printRunJSON(c.App.Writer, out, ref, sandboxOf(agent), dir)
	} else {
		printRun(c.App.Writer, newStyle(c, c.App.Writer), out, ref, dir)
	}
	if err != nil {
		return err
	}
	if out.Result.Infrastructure {
		return exitCode(ExitTrouble) // not graded: the infrastructure failed
	}
	if !out.Result.Passed {
		return exitCode(ExitChanged)
	}
	return nil
}

func printRun(w io.Writer, s *style, o *runner.Outcome, agent, dir string) {
	r := o.Result
	fmt.Fprintf(w, "%s %s · %s · agent %s\n", safe(o.Environment), s.Bold(safe(o.Task.ID)), safe(o.Task.Title), safe(agent))
	if r.Infrastructure {
		printInfrastructure(w, s, r, dir)
		return
	}
	for _, c := range r.Checks {
		printCheck(w, s, c)
	}
	fmt.Fprintf(w, "%s · reward %s · %s, %s · %s\n",
		resultText(s, r), formatReward(r.Reward), plural(r.ToolCalls, "tool call"), plural(r.ToolErrors, "error"), safe(string(r.TerminationReason)))
	if len(r.Violations) > 0 {
		fmt.Fprintf(w, "%s %s\n", s.Bad("violations:"), safe(strings.Join(r.Violations, "; ")))
	}
	if r.Error != nil {
		fmt.Fprintf(w, "%s %s\n", s.Bad("error:"), safe(*r.Error))
	}
	fmt.Fprintf(w, "run: %s\n", safe(dir))
}

func printCheck(w io.Writer, s *style, c env.CheckResult) {
	mark := s.Good("✓")
	switch {
	case c.Passed:
	case c.Kind == env.Coverage:
		mark = s.Warn("?")
	case c.Kind == env.OptionalKind:
		mark = s.Warn("✗")
	default:
		mark = s.Bad("✗")
	}
	label, kind := c.Label, ""
	switch {
	case c.Kind == env.Forbidden && c.Passed:
		// The effect did not happen: say so, never its label alone.
		if label = c.Absent; label == "" {
			label = "not: " + c.Label
		}
	case c.Kind == env.Forbidden:
		kind = s.Dim(" (forbidden, confirmed)")
	case c.Kind != env.Required:
		kind = s.Dim(" (" + safe(string(c.Kind)) + ")")
	}
	fmt.Fprintf(w, "  %s %s%s\n", mark, safe(label), kind)
	if c.Detail != "" {
		fmt.Fprintf(w, "      %s\n", s.Dim(safe(c.Detail)))
	}
}

func verdictText(s *style, v env.Verdict) string {
	switch v {
	case env.Pass:
		return s.Good(string(v))
	case env.Inconclusive:
		return s.Warn(string(v))
	}
	return s.Bad(string(v))
}

func formatReward(r float64) string {
	b, _ := json.Marshal(r)
	return string(b)
}

// runJSON is the --json form of one run.
type runJSON struct {
	FormatVersion int    `json:"formatVersion"`
	Environment   string `json:"environment"`
	Task          string `json:"task"`
	Agent         string `json:"agent"`
	// Sandbox is how an exec agent was contained, bwrap or none (auto
	// falls back to none without bubblewrap); absent for other agents.
	Sandbox   runner.SandboxMode `json:"sandbox,omitempty"`
	RunID     string             `json:"runId"`
	RunDir    string             `json:"runDir"`
	Result    *runner.Result     `json:"result"`
	StateDiff json.RawMessage    `json:"stateDiff"`
}

func printRunJSON(w io.Writer, o *runner.Outcome, agent string, sandbox runner.SandboxMode, dir string) error {
	return writeJSON(w, runJSON{FormatVersion: FormatVersion,
		Environment: o.Environment, Task: o.Task.ID, Agent: agent, Sandbox: sandbox, RunID: o.RunID, RunDir: dir,
		Result: o.Result, StateDiff: o.Artifacts.StateDiff,
	})
}

// sandboxOf is how agent is contained (bwrap or none) when it is an exec
// agent, "" otherwise.
func sandboxOf(agent env.Agent) runner.SandboxMode {
	if sb, ok := agent.(interface{ SandboxMode() runner.SandboxMode }); ok {
		return sb.SandboxMode()
	}
	return ""
}
