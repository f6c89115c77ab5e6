package command

import (
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/oracle/render"
	"github.com/agent-oracle/oracle/oracle/report"
	"github.com/urfave/cli/v2"
)

// A distribution case is never pending: what a check makes of it is the
// counts of its fresh runs, decided over its environment and agent's tasks
// together, and a new baseline for it is recorded (record --runs N runs
// the group as many times again), never accepted from one check. check
// --pending, accept and review say so, with the record command that does
// it, rather than skip such a case without a word.

// distGroup is the changed distribution cases of one environment and
// agent.
type distGroup struct {
	env, agent string
	cases      []string // their tasks
	runs       int      // the most runs one of them ran
}

// distGroups collects the distribution cases that changed, by group in
// the order they come.
type distGroups []*distGroup

// add notes cr when it is a changed distribution case, and reports
// whether it is a distribution case that is not obsolete (an obsolete
// case's removal is pending as for any case).
func (g *distGroups) add(cr *report.Case) bool {
	if cr.Kind != report.KindDistribution || cr.Status == report.StatusObsolete {
		return false
	}
	if cr.Status != report.StatusChanged {
		return true
	}
	runs := 0
	if cr.Distribution != nil {
		runs = cr.Distribution.Runs
	}
	if n := len(*g); n > 0 && (*g)[n-1].env == cr.Env && (*g)[n-1].agent == cr.Agent {
		last := (*g)[n-1]
		last.cases, last.runs = append(last.cases, cr.Task), max(last.runs, runs)
		return true
	}
	*g = append(*g, &distGroup{env: cr.Env, agent: cr.Agent, cases: []string{cr.Task}, runs: runs})
	return true
}

// print says, for each group, that its changed cases are not kept and the
// record command that accepts a new distribution: tasks are the --task
// patterns of the check, which the command repeats.
func (g distGroups) print(w io.Writer, program, prefix string, tasks []string) {
	for _, d := range g {
		fmt.Fprintf(w, "%s%s/%s: %s changed; a distribution is accepted by recording it again, never from one check: %s\n",
			prefix, safe(d.env), safe(d.agent), plural(len(d.cases), "distribution case"), recordAgain(program, d.env, d.agent, tasks, d.runs))
	}
}

// recordAgain is the command that records the distributions of env/agent
// again, with the --task patterns given and runs runs (N when unknown).
func recordAgain(program, envName, agent string, tasks []string, runs int) string {
	words := []string{program, "record", "--env", envName, "--agent", agent}
	for _, t := range tasks {
		words = append(words, "--task", t)
	}
	n := "N"
	if runs > 0 {
		n = fmt.Sprint(runs)
	}
	for i, w := range words {
		words[i] = shellQuote(safe(w))
	}
	return strings.Join(append(words, "--runs", n), " ")
}

// distributionBaselines lists the project's distribution cases (their
// baselines are distributions) whose names match one of globs (every one
// when there are none), in key order; trouble reading the store gives
// none, as this only words a hint.
func distributionBaselines(project string, globs []string) []baseline.Key {
	var out []baseline.Key
	seen := map[baseline.Key]bool{}
	for k, err := range baseline.Open(project).KeysNoting(func(k baseline.Key) { seen[k] = true }) {
		if err != nil {
			return nil
		}
		if !seen[k] {
			continue
		}
		match := len(globs) == 0
		for _, g := range globs {
			if ok, _ := path.Match(g, k.String()); ok {
				match = true
			}
		}
		if match {
			out = append(out, k)
		}
	}
	return out
}

// distributionHint is what accept and review add where nothing is
// pending that globs name, when distribution cases match them: they are
// never pending, and the command that records them again. "" when none
// match.
func distributionHint(program, project string, globs []string) string {
	keys := distributionBaselines(project, globs)
	if len(keys) == 0 {
		return ""
	}
	names := safe(keys[0].String())
	if len(keys) > 1 {
		names += fmt.Sprintf(" and %d more", len(keys)-1)
	}
	fix := recordAgain(program, keys[0].Env, keys[0].Agent, nil, 0)
	if len(keys) == 1 {
		fix = recordAgain(program, keys[0].Env, keys[0].Agent, []string{keys[0].Task}, 0)
	}
	return fmt.Sprintf("%s %s distribution cases (record --runs), which are never pending: accept a new distribution by recording it again, e.g. %s",
		names, map[bool]string{true: "is one of the", false: "are"}[len(keys) == 1], fix)
}

// nothingPendingMatches begins the usage error of a CASE-GLOB that
// matches nothing pending.
const nothingPendingMatches = "nothing pending matches"

// withDistributionHint adds distributionHint to the usage error of a
// CASE-GLOB that matched nothing pending.
func withDistributionHint(c *cli.Context, err error) error {
	e, ok := errors.AsType[*env.Error](err)
	if !ok || e.Code != codeUsage || !strings.HasPrefix(e.Message, nothingPendingMatches) {
		return err
	}
	dir, derr := pendingProject(c)
	if derr != nil {
		return err
	}
	if hint := distributionHint(c.App.Name, dir, c.Args().Slice()); hint != "" {
		return usageError("%s; %s", e.Message, hint)
	}
	return err
}

// printNothingPending is accept's and review's line when nothing is
// pending, with distributionHint when the project has distribution cases.
func printNothingPending(c *cli.Context, p *baseline.Pending) {
	fmt.Fprintf(c.App.Writer, "nothing pending in %s; %s check --pending keeps what changed\n", p.Root(), c.App.Name)
	if dir, err := pendingProject(c); err == nil {
		if hint := distributionHint(c.App.Name, dir, c.Args().Slice()); hint != "" {
			fmt.Fprintln(c.App.Writer, hint)
		}
	}
}

// reportDistributions are the changed distribution cases of the JSON
// report r of a report folder (check --report-dir), which accept --from
// does not accept.
func reportDistributions(r *report.Report) distGroups {
	var g distGroups
	for _, cr := range r.Cases {
		g.add(cr)
	}
	return g
}

// reportJSON is the name of the JSON report in a report folder.
func reportJSON() string {
	f, err := render.Lookup("json")
	if err != nil {
		return "report.json"
	}
	return f.File
}
