package command

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/oracle/mutate"
	"github.com/urfave/cli/v2"
)

// mutateOptions are oracle mutate's flags.
type mutateOptions struct {
	flags
	Env         string
	Agent, Task cli.StringSlice
	Since       string
	Max         int
	Seed        int64
	Jobs        int
	Timeout     time.Duration
	Format      string
	JSON        bool
	ReportDir   string
	MinScore    float64
	Main        string
	ID          cli.StringSlice
	List        bool
}

// mutateCommand is oracle mutate: how strong the gate is on the
// environment's own code.
func mutateCommand() *cli.Command {
	o := &mutateOptions{}
	o.String(&o.Env, &cli.StringFlag{Name: "env", Aliases: []string{"e"}, Usage: "the `environment` to mutate (default: the project's only one)"})
	o.Strings(&o.Agent, &cli.StringSliceFlag{Name: "agent", Aliases: []string{"a"}, Usage: "only cases of agents matching `glob` (repeatable)"})
	o.Strings(&o.Task, &cli.StringSliceFlag{Name: "task", Aliases: []string{"t"}, Usage: "only tasks matching `glob` (repeatable)"})
	o.String(&o.Since, &cli.StringFlag{Name: "since", Usage: "mutate only lines changed since the git `ref` (a pull request's base)"})
	o.Int(&o.Max, &cli.IntFlag{Name: "max", Usage: "run a sample of at most `N` mutants (0: every one)"})
	o.Int64(&o.Seed, &cli.Int64Flag{Name: "seed", Value: 1, Usage: "the `seed` of --max's sample: the same seed, the same mutants"})
	o.Int(&o.Jobs, &cli.IntFlag{Name: "jobs", Aliases: []string{"j"}, Value: runtime.NumCPU(), Usage: "mutants built and checked at once"})
	o.Duration(&o.Timeout, &cli.DurationFlag{Name: "timeout", Usage: "time limit of each mutant's check (default: 10 times the unmutated check's, at least 30s); a mutant past it is a timeout"})
	o.String(&o.Format, &cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "text", Usage: "report `format`: " + strings.Join(mutate.Formats, ", ")})
	o.Bool(&o.JSON, &cli.BoolFlag{Name: "json", Usage: "same as --format json"})
	o.String(&o.ReportDir, &cli.StringFlag{Name: "report-dir", Usage: "also write the report in every format, and each mutant's diff, check report and fresh artifacts, to `DIR` (made when missing)"})
	o.Float64(&o.MinScore, &cli.Float64Flag{Name: "min-score", Usage: "exit 1 when the mutation score (with the baselines) is below `P` percent"})
	o.Strings(&o.ID, &cli.StringSliceFlag{Name: "id", Usage: "only the mutants whose id matches `glob` (repeatable; * stops at /): fixtures/crm/rules.go:56:*"})
	o.Bool(&o.List, &cli.BoolFlag{Name: "list", Usage: "list the selected mutants (id and change, one a line) and run none"})
	o.String(&o.Main, &cli.StringFlag{Name: "main", Usage: "the import `path` of the main package of this binary, which mutants of a Go environment are built into (default: the one this binary was built from)"})
	return &cli.Command{
		Name:  "mutate",
		Usage: "measure the gate: mutate the environment's own code and see what the verifiers and the baselines catch",
		Description: "Makes behaviour mutants of the environment's tools, state and helpers (never its tasks, data,\n" +
			"verifiers, solvers or agents) with the language's own parser, and runs each one as check runs the\n" +
			"environment, against the committed baselines of the selected cases, in an overlay or a copy that\n" +
			"never touches the project. Each mutant is caught (by the verifiers: a verdict left pass; and by\n" +
			"which artifacts), survived, no_coverage (no case executes its line), timeout or error (it does\n" +
			"not build or load; not counted). The unmutated environment must check clean first.\n" +
			"A Go environment is rebuilt with go build -overlay in its module (the go command on PATH).\n" +
			"See docs/mutants.md.\n" +
			"Exit status: 0 done (and the score at least --min-score); 1 the score below --min-score; 2 trouble.",
		Flags:  o.list,
		Action: func(c *cli.Context) error { return o.run(c) },
	}
}

// check refuses flags that make no sense together.
func (o *mutateOptions) check(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageError("mutate takes no arguments, got %q; name the environment with --env", c.Args().First())
	}
	if o.JSON {
		o.Format = "json"
	}
	switch {
	case !slices.Contains(mutate.Formats, o.Format):
		return usageError("--format %q: use one of %s", o.Format, strings.Join(mutate.Formats, ", "))
	case o.Max < 0:
		return usageError("--max %d: give a number of mutants, 0 for every one", o.Max)
	case o.Seed < 0:
		return usageError("--seed %d: give a number from 0", o.Seed)
	case o.Jobs < 1:
		return usageError("--jobs %d: give at least 1", o.Jobs)
	case o.Timeout < 0:
		return usageError("--timeout %s: give a positive duration", o.Timeout)
	case o.given(c, &o.MinScore) != "" && (o.MinScore < 0 || o.MinScore > 100):
		return usageError("--min-score %g: give a percentage from 0 to 100", o.MinScore)
	case o.given(c, &o.Since) != "" && strings.TrimSpace(o.Since) == "":
		return usageError("--since is empty: give a git ref such as origin/main")
	case strings.HasPrefix(o.Since, "-"):
		return usageError("--since %q: give a git ref, not an option", o.Since)
	case o.List && o.given(c, &o.Format, &o.JSON, &o.ReportDir, &o.MinScore) != "":
		return usageError("--list only lists the mutants, as text; leave %s out", o.given(c, &o.Format, &o.JSON, &o.ReportDir, &o.MinScore))
	}
	if o.Main == "" {
		o.Main = mainPackage()
	}
	return nil
}

// mainPackage is the import path of the main package this binary was
// built from; a test binary stands for the package it tests.
func mainPackage() string {
	info, ok := debug.ReadBuildInfo()
	if !ok || info.Path == "" || info.Path == "command-line-arguments" {
		return ""
	}
	return strings.TrimSuffix(info.Path, ".test")
}

// run mutates the environment and reports.
func (o *mutateOptions) run(c *cli.Context) error {
	if err := o.check(c); err != nil {
		return err
	}
	dir, err := project(c)
	if err != nil {
		return err
	}
	project, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if o.Env == "" {
		names := env.ManifestNames(project)
		if len(names) != 1 {
			return usageError("name the environment to mutate with --env (the project has %d: %s)", len(names), strings.Join(names, ", "))
		}
		o.Env = names[0]
	}
	m, err := env.LoadManifest(project, o.Env)
	if err != nil {
		return err
	}
	if m.Module() {
		return usageError("mutate mutates environments written in Go; %s is a module (%s) its host loads", o.Env, m.Entrypoint)
	}
	ctx := c.Context
	target, err := mutate.NewGoTarget(ctx, project, m.Dir(project), o.Main)
	if err != nil {
		return err
	}
	cfg := mutate.Config{Project: project, Env: o.Env, Agents: o.Agent.Value(), Tasks: o.Task.Value(), Max: o.Max, Seed: uint64(o.Seed),
		Jobs: o.Jobs, Timeout: o.Timeout, IDs: o.ID.Value()}
	if o.Since != "" {
		if cfg.Lines, err = mutate.ChangedLines(ctx, project, o.Since, target.Files()); err != nil {
			return err
		}
	}
	if o.List {
		found, selected, _, err := mutate.Select(target, cfg)
		if err != nil {
			return err
		}
		for _, m := range selected {
			fmt.Fprintf(c.App.Writer, "%s  %s\n", safe(m.ID), safe(m.Change()))
		}
		fmt.Fprintf(c.App.Writer, "%d of %d mutants\n", len(selected), found)
		return nil
	}
	stderr := c.App.ErrWriter
	term := isTerminal(stderr)
	cfg.Progress = func(done, total int, n mutate.Counts, left time.Duration) {
		end := "\n"
		if term {
			end = "\x1b[K"
			if done == total {
				end += "\n"
			}
			fmt.Fprint(stderr, "\r")
		}
		fmt.Fprintf(stderr, "mutate: %d/%d mutants: %d caught, %d survived, %d not covered, %d timed out, %d errors; about %s left%s",
			done, total, n.Caught, n.Survived, n.NoCoverage, n.Timeout, n.Error, left.Round(time.Second), end)
	}
	if o.ReportDir != "" {
		if cfg.Kept, err = keepMutants(o.ReportDir); err != nil {
			return err
		}
	}
	fmt.Fprintf(stderr, "mutate: building %s and checking the unmutated environment...\n", o.Main)
	rep, err := mutate.Run(ctx, target, cfg)
	if errors.Is(err, mutate.ErrNotClean) {
		return &env.Error{Code: "not_clean", Message: strings.TrimPrefix(err.Error(), "not_clean: ")}
	}
	if err != nil {
		return err
	}
	if o.ReportDir != "" {
		for _, f := range mutate.Formats {
			if err := writeReportFile(filepath.Join(o.ReportDir, "report."+map[string]string{"text": "txt", "json": "json", "markdown": "md"}[f]), rep, f); err != nil {
				return err
			}
		}
	}
	if err := rep.Write(c.App.Writer, o.Format); err != nil {
		return err
	}
	if o.given(c, &o.MinScore) != "" && rep.Counts.Counted() > 0 && rep.Counts.Score() < o.MinScore {
		fmt.Fprintf(stderr, "mutate: score %.1f%% is below --min-score %g%%\n", rep.Counts.Score(), o.MinScore)
		return exitCode(ExitChanged)
	}
	return nil
}

// keepMutants makes the report folder and returns what keeps each
// mutant's diff and check report there.
func keepMutants(dir string) (func(*mutate.Result, string) error, error) {
	if err := os.MkdirAll(filepath.Join(dir, "mutants"), 0o755); err != nil {
		return nil, fmt.Errorf("--report-dir: %w", err)
	}
	return func(r *mutate.Result, tmp string) error {
		name := strings.NewReplacer("/", "_", ":", "_").Replace(r.ID)
		out := filepath.Join(dir, "mutants", name)
		if err := os.MkdirAll(out, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(out, "mutant.diff"), []byte(r.Diff), 0o644); err != nil {
			return err
		}
		if check := filepath.Join(tmp, "check"); dirExists(check) {
			return os.CopyFS(filepath.Join(out, "check"), os.DirFS(check))
		}
		return nil
	}, nil
}

func dirExists(p string) bool {
	info, err := os.Lstat(p)
	return err == nil && info.IsDir()
}

func writeReportFile(path string, rep *mutate.Report, format string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--report-dir: %w", err)
	}
	if err := rep.Write(f, format); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
