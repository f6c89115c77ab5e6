package command

import (
	"fmt"
	"github.com/agent-oracle/oracle/internal/safetext"
	"io"
	"strings"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/runner"
	"github.com/agent-oracle/oracle/runner/verifiertest"
	"github.com/urfave/cli/v2"
)

func verifierCommand(envs Environments) *cli.Command {
	return &cli.Command{
		Name:  "verifier",
		Usage: "list the verifiers, test them against their labelled candidates, scaffold new ones",
		Subcommands: []*cli.Command{
			verifierListCommand(envs),
			verifierTestCommand(envs),
			verifierAddCommand(),
		},
	}
}

// verifierListOptions are verifier list's flags.
type verifierListOptions struct {
	flags
	Env  string
	JSON bool
}

func verifierListCommand(envs Environments) *cli.Command {
	o := &verifierListOptions{}
	o.String(&o.Env, &cli.StringFlag{Name: envFlag, Aliases: []string{"e"}, Usage: "only this environment"})
	o.Bool(&o.JSON, &cli.BoolFlag{Name: "json", Usage: "print as JSON"})
	return &cli.Command{
		Name:      "list",
		Usage:     "list the verifiers, the task each grades, and how many candidates test it",
		ArgsUsage: " ",
		Flags:     o.list,
		Action:    func(c *cli.Context) error { return o.run(c, envs) },
	}
}

// run lists the verifiers.
func (o *verifierListOptions) run(c *cli.Context, envs Environments) error {
	if c.NArg() > 0 {
		return usageError("verifier list takes no arguments, got %q", c.Args().First())
	}
	list, err := selectEnvs(envs, o.Env)
	if err != nil {
		return err
	}
	type verifierJSON struct {
		env.VerifierInfo
		Candidates int `json:"candidates"`
	}
	type envJSON struct {
		Env       string         `json:"env"`
		Verifiers []verifierJSON `json:"verifiers"`
	}
	var out []envJSON
	for _, e := range list {
		files, err := verifiertest.Load(env.CandidateFiles(e))
		if err != nil {
			return fmt.Errorf("environment %s: %w", e.Name(), err)
		}
		counts := map[string]int{}
		for _, f := range files {
			counts[f.Task] = len(f.Candidates)
		}
		ej := envJSON{Env: e.Name(), Verifiers: []verifierJSON{}}
		for _, v := range e.Verifiers() {
			ej.Verifiers = append(ej.Verifiers, verifierJSON{v, counts[v.TaskID]})
		}
		out = append(out, ej)
	}
	w := c.App.Writer
	if o.JSON {
		return writeEnvironments(w, out)
	}
	s := newStyle(c, w)
	for i, e := range out {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w, s.Bold(e.Env))
		for _, v := range e.Verifiers {
			count := fmt.Sprintf("%d candidates", v.Candidates)
			if v.Candidates == 0 {
				count = s.Warn("untested")
			}
			fmt.Fprintf(w, "  %-8s %-10s %-14s %s\n", v.ID, v.TaskID, count, v.Name)
		}
	}
	return nil
}

// verifierTestOptions are verifier test's flags.
type verifierTestOptions struct {
	flags
	RequireCandidates bool
	Env               string
	Task              cli.StringSlice
	JSON              bool
	agents            agentOptions
}

func verifierTestCommand(envs Environments) *cli.Command {
	o := &verifierTestOptions{}
	o.Bool(&o.RequireCandidates, &cli.BoolFlag{Name: "require-candidates", Usage: "exit 2 (no_candidates) when a selected task has no candidates, for CI"})
	o.String(&o.Env, &cli.StringFlag{Name: envFlag, Aliases: []string{"e"}, Usage: "only this environment"})
	o.Strings(&o.Task, &cli.StringSliceFlag{Name: "task", Aliases: []string{"t"}, Usage: "only this task `id` (repeatable)"})
	o.Bool(&o.JSON, &cli.BoolFlag{Name: "json", Usage: "print the outcomes and the counts as JSON"})
	o.agents.sandboxFlags(&o.flags)
	return &cli.Command{
		Name:      "test",
		Usage:     "grade each labelled candidate with the real verifier; count false passes and false fails",
		ArgsUsage: " ",
		Description: "Each candidate in an environment's candidates/<TASK>.json is a scripted rollout with the verdict its\n" +
			"verifier must give. Every candidate is played through the runner in a fresh world and graded by the task's\n" +
			"verifier. A false pass is a candidate that should fail or be inconclusive but passed; a false fail is one\n" +
			"that should pass but did not. Candidates start no process; the sandbox flags are checked as for run\n" +
			"and check, so that one set of flags serves every command.\n" +
			"A task without candidates is listed as untested; an environment without any gets a note, and exit 0,\n" +
			"unless --require-candidates (for CI) makes either trouble.\n" +
			"Exit status: 0 every candidate graded as labelled, 1 a mismatch, 2 trouble.",
		Flags:  o.list,
		Action: func(c *cli.Context) error { return o.run(c, envs) },
	}
}

// run grades the candidates.
func (o *verifierTestOptions) run(c *cli.Context, envs Environments) error {
	if c.NArg() > 0 {
		return usageError("verifier test takes no arguments, got %q; name tasks with --task", c.Args().First())
	}
	if _, err := o.agents.resolver(c); err != nil {
		return err
	}
	plan, err := planVerifierTest(envs, o.Env, o.Task.Value())
	if err != nil {
		return err
	}
	report := &verifiertest.Report{}
	for _, p := range plan {
		r, err := verifiertest.Run(c.Context, p.env, verifiertest.Options{Tasks: p.tasks, Config: runner.Config{}})
		if err != nil {
			return err
		}
		if len(p.tasks) > 0 && len(r.Untested) > 0 {
			u := r.Untested[0]
			return &env.Error{Code: "no_candidates", Message: fmt.Sprintf("%s has no candidates for %s; add %s/%s.json", u.Env, u.Task, verifiertest.Dir, u.Task)}
		}
		report.Merge(r)
	}
	if o.RequireCandidates && len(report.Untested) > 0 {
		u, more := report.Untested[0], ""
		if n := len(report.Untested) - 1; n > 0 {
			more = fmt.Sprintf(" (and %s)", plural(n, "more untested task"))
		}
		return &env.Error{Code: "no_candidates", Message: fmt.Sprintf("%s has no candidates for %s%s; add %s/%s.json, or leave --require-candidates out",
			u.Env, u.Task, more, verifiertest.Dir, u.Task)}
	}
	if len(report.Outcomes) == 0 {
		fmt.Fprintf(c.App.ErrWriter, "note: no verifier test candidates in %s yet: nothing to test. Add %s/<TASK>.json beside an environment's tasks (an environment of Go also sets Definition.Candidates: docs/authoring.md shows how); --require-candidates makes this an error\n",
			strings.Join(planNames(plan), ", "), verifiertest.Dir)
	}
	sum := report.Summary()
	w := c.App.Writer
	if o.JSON {
		err = writeJSON(w, struct {
			FormatVersion int                    `json:"formatVersion"`
			Summary       verifiertest.Summary   `json:"summary"`
			Outcomes      []verifiertest.Graded  `json:"outcomes"`
			Untested      []verifiertest.TaskRef `json:"untested"`
		}{FormatVersion, sum, report.Outcomes, nonNil(report.Untested)})
	} else {
		printVerifierTest(w, newStyle(c, w), report, sum)
	}
	if err != nil {
		return err
	}
	if sum.Mismatches() > 0 {
		return exitCode(ExitChanged)
	}
	return nil
}

// selectEnvs returns the named environment, or all of them.
func selectEnvs(envs Environments, name string) ([]env.Environment, error) {
	cat, err := loadCatalog(envs)
	if err != nil {
		return nil, err
	}
	return cat.selected(name)
}

// testPlan is one environment to test and its tasks (empty: all).
type testPlan struct {
	env   env.Environment
	tasks []string
}

// planVerifierTest resolves --env and --task: with tasks and no
// environment, each task is looked up in whichever environment has it.
func planVerifierTest(envs Environments, envName string, tasks []string) ([]testPlan, error) {
	if len(tasks) == 0 || envName != "" {
		list, err := selectEnvs(envs, envName)
		if err != nil {
			return nil, err
		}
		plan := make([]testPlan, len(list))
		for i, e := range list {
			plan[i] = testPlan{env: e, tasks: tasks}
		}
		return plan, nil
	}
	cat, err := loadCatalog(envs)
	if err != nil {
		return nil, err
	}
	var plan []testPlan
	for _, id := range tasks {
		e, _, err := cat.task("", id)
		if err != nil {
			return nil, err
		}
		found := false
		for i := range plan {
			if plan[i].env.Name() == e.Name() {
				plan[i].tasks = append(plan[i].tasks, id)
				found = true
			}
		}
		if !found {
			plan = append(plan, testPlan{env: e, tasks: []string{id}})
		}
	}
	return plan, nil
}

func planNames(plan []testPlan) []string {
	names := make([]string, len(plan))
	for i, p := range plan {
		names[i] = p.env.Name()
	}
	return names
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// mismatchText names a mismatch for the text report.
var mismatchText = map[verifiertest.Mismatch]string{
	verifiertest.FalsePass:       "FALSE PASS",
	verifiertest.FalseFail:       "FALSE FAIL",
	verifiertest.WrongVerdict:    "WRONG VERDICT",
	verifiertest.WrongViolations: "WRONG VIOLATIONS",
	verifiertest.WrongToolErrors: "WRONG TOOL ERRORS",
	verifiertest.VerifierError:   "VERIFIER ERROR",
}

func printVerifierTest(w io.Writer, s *style, r *verifiertest.Report, sum verifiertest.Summary) {
	group := ""
	for _, o := range r.Outcomes {
		if g := o.Env + "/" + o.Task; g != group {
			group = g
			fmt.Fprintf(w, "%s %s · %s %s\n", safetext.LineStart(o.Env), s.Bold(safe(o.Task)), safe(o.Verifier), safe(o.VerifierName))
		}
		mark := s.Good("✓")
		if !o.OK() {
			mark = s.Bad("✗")
		}
		fmt.Fprintf(w, "  %s %s  %s\n", mark, safe(o.Name), s.Dim(safe(fmt.Sprintf("expected %s, got %s", o.Expect, o.Got))))
		if o.OK() {
			continue
		}
		fmt.Fprintf(w, "      %s %s\n", s.Bad(mismatchText[o.Mismatch]), safe(o.Detail))
		if len(o.Violations) > 0 {
			fmt.Fprintf(w, "      violations: %s\n", safe(strings.Join(o.Violations, "; ")))
		}
		if o.Result != nil {
			for _, ch := range o.Result.Checks {
				if !ch.Passed {
					fmt.Fprintf(w, "      %s [%s] %s: %s\n", s.Warn("✗"), safe(string(ch.Kind)), safe(ch.Label), safe(ch.Detail))
				}
			}
		}
		fmt.Fprintf(w, "      why: %s\n", safe(o.Why))
	}
	for _, u := range r.Untested {
		fmt.Fprintf(w, "%s %s/%s has no candidates\n", s.Warn("untested"), safe(u.Env), safe(u.Task))
	}
	fmt.Fprintf(w, "%d candidates: %d as expected, %d mismatched\n", sum.Candidates, sum.AsExpected, sum.Mismatches())
	fmt.Fprintf(w, "false passes: %d\n", sum.FalsePasses)
	fmt.Fprintf(w, "false fails: %d\n", sum.FalseFails)
	if sum.Other > 0 {
		fmt.Fprintf(w, "other mismatches: %d\n", sum.Other)
	}
}
