package verifiertest

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/runner"
)

// Options narrow and configure a verifier test run.
type Options struct {
	// Tasks are the ids of the tasks to test; empty means every task.
	Tasks []string
	// Config is the budget of each candidate's rollout; the zero value uses
	// the runner's defaults.
	Config runner.Config
}

// Run plays every candidate of e's selected tasks through runner.Run and
// compares the verifier's verdict with the expected one. It returns an error
// for trouble only: an unreadable candidate file, one for a task e does not
// have, a call of a tool e does not have, a task named in opts that e does
// not have, or a rollout the runner could not make. Mismatches are outcomes.
func Run(ctx context.Context, e env.Environment, opts Options) (*Report, error) {
	tasks, err := e.Tasks()
	if err != nil {
		return nil, err
	}
	files, err := Load(env.CandidateFiles(e))
	if err != nil {
		return nil, fmt.Errorf("environment %s: %w", e.Name(), err)
	}
	byTask := map[string]File{}
	for _, f := range files {
		byTask[f.Task] = f
	}
	if err := checkFiles(e, tasks, files); err != nil {
		return nil, err
	}
	selected, err := selectTasks(e, tasks, opts.Tasks)
	if err != nil {
		return nil, err
	}
	names := verifierNames(e)
	r := &Report{}
	for _, t := range selected {
		f, ok := byTask[t.ID]
		if !ok {
			r.Untested = append(r.Untested, TaskRef{Env: e.Name(), Task: t.ID})
			continue
		}
		for _, c := range f.Candidates {
			o, err := play(ctx, e, t, c, opts.Config)
			if err != nil {
				return nil, err
			}
			o.VerifierName = names[t.VerifierID]
			r.Outcomes = append(r.Outcomes, o)
		}
	}
	return r, nil
}

// checkFiles refuses candidate files for tasks e does not have and calls of
// tools it does not have: both are typos that would silently weaken a test.
func checkFiles(e env.Environment, tasks []env.Task, files []File) error {
	taskIDs := map[string]bool{}
	for _, t := range tasks {
		taskIDs[t.ID] = true
	}
	tools := map[string]bool{}
	for _, t := range e.Tools() {
		tools[t.Name] = true
	}
	for _, f := range files {
		if !taskIDs[f.Task] {
			return fmt.Errorf("environment %s: %s is for task %s, which does not exist; rename the file after a task id", e.Name(), f.Path, f.Task)
		}
		for _, c := range f.Candidates {
			for j, call := range c.Calls {
				if !tools[call.Tool] {
					return fmt.Errorf("environment %s: %s: candidate %q call %d uses tool %q, which %s does not have; fix the tool name",
						e.Name(), f.Path, c.Name, j+1, call.Tool, e.Name())
				}
			}
		}
	}
	return nil
}

func selectTasks(e env.Environment, tasks []env.Task, ids []string) ([]env.Task, error) {
	if len(ids) == 0 {
		return tasks, nil
	}
	var out []env.Task
	for _, id := range ids {
		t, err := env.FindTask(e, id)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	slices.SortStableFunc(out, func(a, b env.Task) int { return strings.Compare(a.ID, b.ID) })
	return slices.CompactFunc(out, func(a, b env.Task) bool { return a.ID == b.ID }), nil
}

func verifierNames(e env.Environment) map[string]string {
	names := map[string]string{}
	for _, v := range e.Verifiers() {
		names[v.ID] = v.Name
	}
	return names
}

// play runs one candidate and classifies its outcome.
func play(ctx context.Context, e env.Environment, t env.Task, c Candidate, cfg runner.Config) (Graded, error) {
	cfg.Agent = "candidate:" + c.Name
	cfg.ResultOnly = true
	ro, err := runner.Run(ctx, e, t, runner.ScriptAgent(c.Script()), cfg)
	if err != nil {
		return Graded{}, fmt.Errorf("candidate %q of %s %s: %w", c.Name, e.Name(), t.ID, err)
	}
	res := ro.Result
	o := Graded{
		Env: e.Name(), Task: t.ID, Verifier: t.VerifierID,
		Name: c.Name, Why: c.Why,
		Expect: c.Expect, Got: res.Verdict,
		ExpectViolations: sorted(c.Violations), Violations: sorted(res.Violations),
		ExpectToolErrors: c.ToolErrors, ToolErrors: res.ToolErrors,
		Reward: res.Reward, Result: res, ResultJSON: ro.Artifacts.Result,
	}
	if res.Error != nil {
		o.Error = *res.Error
	}
	o.Mismatch, o.Detail = classify(o)
	return o, nil
}

// classify names what is wrong with an outcome, most severe first: a
// verifier error, a false pass, a false fail, another verdict, other
// violations, other tool errors.
func classify(o Graded) (Mismatch, string) {
	switch {
	case o.Error != "":
		return VerifierError, "the rollout was graded with an error: " + o.Error
	case o.Got == env.Pass && o.Expect != env.Pass:
		return FalsePass, fmt.Sprintf("the verifier passed a candidate that should be %s", o.Expect)
	case o.Expect == env.Pass && o.Got != env.Pass:
		return FalseFail, fmt.Sprintf("the verifier gave %s to a candidate that should pass", o.Got)
	case o.Got != o.Expect:
		return WrongVerdict, fmt.Sprintf("expected %s, got %s", o.Expect, o.Got)
	case !slices.Equal(o.ExpectViolations, o.Violations):
		return WrongViolations, fmt.Sprintf("expected violations [%s], got [%s]",
			strings.Join(o.ExpectViolations, "; "), strings.Join(o.Violations, "; "))
	case o.ExpectToolErrors != o.ToolErrors:
		return WrongToolErrors, fmt.Sprintf("expected %d tool errors in the script, got %d; check the script's calls",
			o.ExpectToolErrors, o.ToolErrors)
	}
	return None, ""
}

func sorted(s []string) []string {
	out := append([]string{}, s...)
	sort.Strings(out)
	return out
}
