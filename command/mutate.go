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
	env           string
	agents, tasks []string
	since         string
	max           int
	seed          uint64
	jobs          int
	timeout       time.Duration
	format        string
	reportDir     string
	minScore      float64
	minScoreSet   bool
	main          string
	ids           []string
	list          bool
}

// mutateCommand is oracle mutate: how strong the gate is on the
// environment's own code.
func mutateCommand() *cli.Command {
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
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "env", Aliases: []string{"e"}, Usage: "the `environment` to mutate (default: the project's only one)"},
			&cli.StringSliceFlag{Name: "agent", Aliases: []string{"a"}, Usage: "only cases of agents matching `glob` (repeatable)"},
			&cli.StringSliceFlag{Name: "task", Aliases: []string{"t"}, Usage: "only tasks matching `glob` (repeatable)"},
			&cli.StringFlag{Name: "since", Usage: "mutate only lines changed since the git `ref` (a pull request's base)"},
			&cli.IntFlag{Name: "max", Usage: "run a sample of at most `N` mutants (0: every one)"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "the `seed` of --max's sample: the same seed, the same mutants"},
			&cli.IntFlag{Name: "jobs", Aliases: []string{"j"}, Value: runtime.NumCPU(), Usage: "mutants built and checked at once"},
			&cli.DurationFlag{Name: "timeout", Usage: "time limit of each mutant's check (default: 10 times the unmutated check's, at least 30s); a mutant past it is a timeout"},
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "text", Usage: "report `format`: " + strings.Join(mutate.Formats, ", ")},
			&cli.BoolFlag{Name: "json", Usage: "same as --format json"},
			&cli.StringFlag{Name: "report-dir", Usage: "also write the report in every format, each survivor's diff and each mutant's check report and fresh artifacts to `DIR` (made when missing)"},
			&cli.Float64Flag{Name: "min-score", Usage: "exit 1 when the mutation score (with the baselines) is below `P` percent"},
			&cli.StringSliceFlag{Name: "id", Usage: "only the mutants whose id matches `glob` (repeatable; * stops at /): fixtures/crm/rules.go:56:*"},
			&cli.BoolFlag{Name: "list", Usage: "list the selected mutants (id and change, one a line) and run none"},
			&cli.StringFlag{Name: "main", Usage: "the import `path` of the main package of this binary, which mutants of a Go environment are built into (default: the one this binary was built from)"},
		},
		Action: func(c *cli.Context) error {
			o, err := mutateFlags(c)
			if err != nil {
				return err
			}
			return runMutate(c, o)
		},
	}
}

// mutateFlags reads mutate's flags, in one place.
func mutateFlags(c *cli.Context) (mutateOptions, error) {
	if c.NArg() > 0 {
		return mutateOptions{}, usageError("mutate takes no arguments, got %q; name the environment with --env", c.Args().First())
	}
	o := mutateOptions{
		env: c.String("env"), agents: c.StringSlice("agent"), tasks: c.StringSlice("task"), since: c.String("since"),
		max: c.Int("max"), seed: c.Uint64("seed"), jobs: c.Int("jobs"), timeout: c.Duration("timeout"),
		format: c.String("format"), reportDir: c.String("report-dir"), minScore: c.Float64("min-score"),
		minScoreSet: c.IsSet("min-score"), main: c.String("main"), ids: c.StringSlice("id"), list: c.Bool("list"),
	}
	if c.Bool("json") {
		o.format = "json"
	}
	switch {
	case !slices.Contains(mutate.Formats, o.format):
		return o, usageError("--format %q: use one of %s", o.format, strings.Join(mutate.Formats, ", "))
	case o.max < 0:
		return o, usageError("--max %d: give a number of mutants, 0 for every one", o.max)
	case o.jobs < 1:
		return o, usageError("--jobs %d: give at least 1", o.jobs)
	case o.timeout < 0:
		return o, usageError("--timeout %s: give a positive duration", o.timeout)
	case o.minScoreSet && (o.minScore < 0 || o.minScore > 100):
		return o, usageError("--min-score %g: give a percentage from 0 to 100", o.minScore)
	case c.IsSet("since") && strings.TrimSpace(o.since) == "":
		return o, usageError("--since is empty: give a git ref such as origin/main")
	case o.list && (o.format != "text" || o.reportDir != "" || o.minScoreSet):
		return o, usageError("--list only lists the mutants, as text; leave --format, --report-dir and --min-score out")
	case strings.HasPrefix(o.since, "-"):
		return o, usageError("--since %q: give a git ref, not an option", o.since)
	}
	if o.main == "" {
		o.main = mainPackage()
	}
	return o, nil
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

func runMutate(c *cli.Context, o mutateOptions) error {
	dir, err := project(c)
	if err != nil {
		return err
	}
	project, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if o.env == "" {
		names := env.ManifestNames(project)
		if len(names) != 1 {
			return usageError("name the environment to mutate with --env (the project has %d: %s)", len(names), strings.Join(names, ", "))
		}
		o.env = names[0]
	}
	m, err := env.LoadManifest(project, o.env)
	if err != nil {
		return err
	}
	if m.Module() {
		return usageError("mutate mutates environments written in Go; %s is a module (%s) its host loads", o.env, m.Entrypoint)
	}
	ctx := c.Context
	target, err := mutate.NewGoTarget(ctx, project, m.Dir(project), o.main)
	if err != nil {
		return err
	}
	cfg := mutate.Config{Project: project, Env: o.env, Agents: o.agents, Tasks: o.tasks, Max: o.max, Seed: o.seed,
		Jobs: o.jobs, Timeout: o.timeout, IDs: o.ids}
	if o.since != "" {
		if cfg.Lines, err = mutate.ChangedLines(ctx, project, o.since, target.Files()); err != nil {
			return err
		}
	}
	if o.list {
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
	if o.reportDir != "" {
		if cfg.Kept, err = keepMutants(o.reportDir); err != nil {
			return err
		}
	}
	fmt.Fprintf(stderr, "mutate: building %s and checking the unmutated environment...\n", o.main)
	rep, err := mutate.Run(ctx, target, cfg)
	if errors.Is(err, mutate.ErrNotClean) {
		return &env.Error{Code: "not_clean", Message: strings.TrimPrefix(err.Error(), "not_clean: ")}
	}
	if err != nil {
		return err
	}
	if o.reportDir != "" {
		for _, f := range mutate.Formats {
			if err := writeReportFile(filepath.Join(o.reportDir, "report."+map[string]string{"text": "txt", "json": "json", "markdown": "md"}[f]), rep, f); err != nil {
				return err
			}
		}
	}
	if err := rep.Write(c.App.Writer, o.format); err != nil {
		return err
	}
	if o.minScoreSet && rep.Counts.Counted() > 0 && rep.Counts.Score() < o.minScore {
		fmt.Fprintf(stderr, "mutate: score %.1f%% is below --min-score %g%%\n", rep.Counts.Score(), o.minScore)
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
