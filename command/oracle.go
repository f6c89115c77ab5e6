package command

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/oracle"
	"github.com/agent-oracle/oracle/oracle/render"
	"github.com/agent-oracle/oracle/runner"
	"github.com/urfave/cli/v2"
)

// selectionFlags narrow the cases of record and check; agentUsage is the
// command's own help for --agent.
func selectionFlags(agentUsage string) []cli.Flag {
	return append([]cli.Flag{
		&cli.StringSliceFlag{Name: "env", Aliases: []string{"e"}, Usage: "only environments matching `glob` (repeatable)"},
		&cli.StringSliceFlag{Name: "agent", Aliases: []string{"a"}, Usage: agentUsage},
		&cli.StringSliceFlag{Name: "task", Aliases: []string{"t"}, Usage: "only tasks matching `glob` (repeatable)"},
		&cli.StringFlag{Name: "shard", Usage: "run only shard `i/n` of the cases (1 ≤ i ≤ n), split by a stable hash of each case"},
		&cli.IntFlag{Name: "repeat", Value: 2, Usage: "runs of each case; they must agree"},
		&cli.IntFlag{Name: "jobs", Aliases: []string{"j"}, Value: runtime.NumCPU(), Usage: "cases run at once"},
		&cli.IntFlag{Name: "max-tool-calls", Value: runner.DefaultMaxToolCalls, Usage: "tool-call budget of each rollout"},
		&cli.DurationFlag{Name: "timeout", Value: runner.DefaultTimeout, Usage: "time budget of each rollout"},
		agentEnvFlag(),
		&cli.StringSliceFlag{Name: "artifacts", Usage: "freeze and compare only these `artifacts` (comma-separated or repeated): " +
			strings.Join(env.BaselineArtifacts, ", ") + "; overrides the \"baselines\" of each environment's silo.environment.json (default: all)"},
	}, sandboxFlags()...)
}

// selection reads the selection flags.
func selection(c *cli.Context) (oracle.Selection, error) {
	sel := oracle.Selection{Envs: c.StringSlice("env"), Agents: c.StringSlice("agent"), Tasks: c.StringSlice("task")}
	if c.IsSet("shard") { // an empty --shard "$UNSET" is an error, never every case
		shard, err := oracle.ParseShard(c.String("shard"))
		if err != nil {
			return sel, usageError("--shard %v", err)
		}
		sel.Shard = shard
	}
	if err := sel.Validate(); err != nil {
		return sel, usageError("%v", err)
	}
	return sel, nil
}

// options reads the flags shared by record and check.
func options(c *cli.Context) (oracle.Options, error) {
	if c.Int("repeat") < 1 || c.Int("jobs") < 1 || c.Int("max-tool-calls") < 1 || c.Duration("timeout") <= 0 {
		return oracle.Options{}, usageError("--repeat, --jobs, --max-tool-calls and --timeout must be positive")
	}
	res, err := resolver(c)
	if err != nil {
		return oracle.Options{}, err
	}
	o := oracle.Options{
		Repeat:  c.Int("repeat"),
		Jobs:    c.Int("jobs"),
		Config:  runner.Config{MaxToolCalls: c.Int("max-tool-calls"), Timeout: c.Duration("timeout")},
		Resolve: res.Resolve,
	}
	o.Progress = newProgress(c.App.ErrWriter, isTerminal(c.App.ErrWriter))
	return o, nil
}

// selectCases loads the environments and returns the selected cases of
// the project and its baseline store.
func selectCases(c *cli.Context, envs Environments, sel oracle.Selection) (*oracle.Selected, *baseline.Store, error) {
	dir, err := project(c)
	if err != nil {
		return nil, nil, err
	}
	for _, a := range sel.Agents {
		if strings.HasPrefix(a, "replay:") {
			return nil, nil, usageError("--agent %s: check runs the replay cases under %s; make one with %s record --agent replay:PATH", a, oracle.TracesDir, c.App.Name)
		}
	}
	cat, err := loadCatalog(envs)
	if err != nil {
		return nil, nil, err
	}
	store := baseline.Open(dir)
	selected, err := oracle.Select(dir, cat.envs, sel, store.List)
	if err != nil {
		return nil, nil, flagSelectError(err)
	}
	var override []string
	if c.IsSet("artifacts") {
		override = c.StringSlice("artifacts")
		if override == nil {
			override = []string{}
		}
	}
	if err := selected.FreezeFiles(dir, override); err != nil {
		if override != nil {
			return nil, nil, usageError("--%v", err) // the library's "artifacts: …"
		}
		return nil, nil, err
	}
	return selected, store, nil
}

func checkCommand(envs Environments) *cli.Command {
	return &cli.Command{
		Name:  "check",
		Usage: "re-run the cases and compare them with their baselines (the CI gate)",
		Description: "Runs every selected case (environment × regression agent × task) and compares its artifacts\n" +
			"(result.json, state-diff.json, calls.json; see --artifacts) with the baselines in .silo/baselines\n" +
			"byte for byte. Never writes a baseline.\n" +
			"A name given to --env, --agent or --task that names nothing, or a selection that holds no case,\n" +
			"is trouble, never a pass. With --shard the JSON report names its shard and selection, and --merge\n" +
			"refuses an incomplete set of shards.\n" +
			"Exit status: 0 all unchanged; 1 changed, missing, obsolete or nondeterministic; 2 trouble.",
		Flags: append(selectionFlags("only agents matching `glob` (repeatable); the replay cases under .silo/traces are selected by their agent name"),
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "text", Usage: "report `format`: text, json, markdown, junit or html"},
			&cli.BoolFlag{Name: "json", Usage: "same as --format json"},
			&cli.StringFlag{Name: "report-dir", Usage: "also write the report in every format and the fresh artifacts of the cases that did not match to `DIR` (a folder, made when missing; a symlink planted inside it is refused)"},
			&cli.StringSliceFlag{Name: "merge", Usage: "do not run: merge the JSON reports (--json) of every shard of one selection in `FILE`s (repeatable); a missing, repeated or foreign shard is trouble"},
			&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "list unchanged cases too"},
			&cli.BoolFlag{Name: "pending", Usage: "keep in .silo/pending the fresh artifacts of each changed or missing case and a removal for each obsolete one, for oracle review, accept and reject"},
		),
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageError("check takes no arguments, got %q; select cases with --env, --agent and --task", c.Args().First())
			}
			format := c.String("format")
			if c.Bool("json") {
				format = "json"
			}
			switch format {
			case "text", "json", "markdown", "junit", "html":
			default:
				return usageError("--format %q is not text, json, markdown, junit or html", format)
			}
			if c.IsSet("report-dir") {
				dir, err := project(c)
				if err != nil {
					return err
				}
				if err := oracle.CheckReportDir(dir, c.String("report-dir")); err != nil {
					return usageError("%v", err)
				}
			}
			if merge := c.StringSlice("merge"); len(merge) > 0 {
				for _, flag := range []string{"env", "agent", "task", "shard", "pending"} {
					if c.IsSet(flag) {
						return usageError("--merge runs no case, so --%s selects nothing; the reports say what they hold", flag)
					}
				}
				r, err := oracle.MergeReports(merge)
				if err != nil {
					return err
				}
				return checkStreamed(c, format, func(each func(*oracle.CaseReport, *oracle.Kept) error) (*oracle.Report, int, error) {
					return mergedCases(c, r, each)
				})
			}
			sel, err := selection(c)
			if err != nil {
				return err
			}
			opts, err := options(c)
			if err != nil {
				return err
			}
			selected, store, err := selectCases(c, envs, sel)
			if err != nil {
				return err
			}
			return checkStreamed(c, format, func(each func(*oracle.CaseReport, *oracle.Kept) error) (*oracle.Report, int, error) {
				return checkEach(c, store, selected, sel, opts, each)
			})
		},
	}
}

// textOptions are the options of the text report written to w.
func textOptions(c *cli.Context, w io.Writer) render.TextOptions {
	return render.TextOptions{Colors: newStyle(c, w).colors(), All: c.Bool("verbose"), Commands: reportCommands(c)}
}

func writeReport(c *cli.Context, w io.Writer, format string, r *oracle.Report) error {
	switch format {
	case "json":
		return writeJSON(w, r)
	}
	// The reports suggest this binary's commands, and case errors may name
	// some (oracle record): here, this binary's.
	var buf bytes.Buffer
	var err error
	switch format {
	case "markdown":
		err = render.Markdown(&buf, r, reportCommands(c))
	case "junit":
		err = render.JUnit(&buf, r, reportCommands(c))
	case "html":
		err = render.HTML(&buf, r, reportCommands(c))
	default:
		err = render.Text(&buf, r, textOptions(c, w))
	}
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, named(c, buf.String()))
	return err
}

// reportCommands are the commands a check report suggests.
func reportCommands(c *cli.Context) render.Commands {
	return render.Commands{Record: c.App.Name + " record", Prune: c.App.Name + " record --prune"}
}

func recordCommand(envs Environments) *cli.Command {
	return &cli.Command{
		Name:  "record",
		Usage: "run the cases and freeze their artifacts as baselines",
		Description: "Runs every selected case at least twice and writes its artifacts (result.json, state-diff.json,\n" +
			"calls.json; see --artifacts) to\n" +
			".silo/baselines/<env>/<agent>/<TASK>.*, only where they changed. A case whose runs differ is\n" +
			"refused (nondeterministic) and the first differing path is shown. Writes are atomic: each file\n" +
			"is either its old or its new version. Every case is listed with what was done: wrote, kept,\n" +
			"refused, obsolete, removed, error, or not-written. When a case fails to run, nothing is written\n" +
			"(the others are not-written); when a write fails, record stops there: the cases listed before it\n" +
			"as wrote were written, the rest are not-written, and nothing is pruned.\n" +
			"Exit status: 0 recorded; 1 a case was refused; 2 trouble.",
		Flags: append(selectionFlags("only agents matching `glob` (repeatable), or replay:PATH, which makes the recorded trace.jsonl at PATH a case and freezes it"),
			&cli.BoolFlag{Name: "prune", Usage: "remove obsolete baselines (baselines with no case)"},
			&cli.BoolFlag{Name: "json", Usage: "print what was done as JSON"},
		),
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageError("record takes no arguments, got %q; select cases with --env, --agent and --task", c.Args().First())
			}
			sel, err := selection(c)
			if err != nil {
				return err
			}
			if _, err := project(c); err != nil {
				return err
			}
			if sel, err = importReplays(c, envs, sel); err != nil {
				return err
			}
			opts, err := options(c)
			if err != nil {
				return err
			}
			if opts.Repeat < 2 {
				return usageError("--repeat must be at least 2: record compares two runs before it freezes a case")
			}
			selected, store, err := selectCases(c, envs, sel)
			if err != nil {
				return err
			}
			rep, err := oracle.Record(c.Context, store, selected.Cases, sel, oracle.RecordOptions{Options: opts, Prune: c.Bool("prune")})
			if err != nil {
				return err
			}
			if c.Bool("json") {
				if err := writeJSON(c.App.Writer, struct {
					FormatVersion int `json:"formatVersion"`
					*oracle.RecordReport
				}{FormatVersion, rep}); err != nil {
					return err
				}
			} else {
				printRecord(c.App.Writer, newStyle(c, c.App.Writer), rep)
			}
			for _, rc := range rep.Cases {
				if rc.Status == oracle.RecordError {
					fmt.Fprintf(c.App.ErrWriter, "error: %s: %s\n", rc.Case, named(c, rc.Error))
				}
			}
			if code := recordExit(rep); code != ExitOK {
				return exitCode(code)
			}
			return nil
		},
	}
}

func printRecord(w io.Writer, s *style, rep *oracle.RecordReport) {
	width := 9 // the status column fits the longest status listed
	for _, rc := range rep.Cases {
		width = max(width, len(rc.Status))
	}
	for _, rc := range rep.Cases {
		status := fmt.Sprintf("%-*s", width, rc.Status)
		note := ""
		switch rc.Status {
		case oracle.RecordWrote:
			status = s.Good(status)
		case oracle.RecordKept:
			status = s.Dim(status)
		case oracle.RecordRefused:
			status = s.Bad(status)
			note = "  nondeterministic: " + rc.Divergence.String()
		case oracle.RecordError:
			status = s.Bad(status)
			note = "  " + rc.Error
		case oracle.RecordObsolete:
			status = s.Warn(status)
			note = "  baseline with no case; --prune removes it"
		case oracle.RecordRemoved:
			status = s.Warn(status)
		case oracle.RecordNotWritten:
			status = s.Dim(status)
			note = "  not written: record stopped at an error"
		}
		verdict := ""
		if rc.Verdict != "" {
			verdict = s.Dim(" (" + string(rc.Verdict) + ")")
		}
		fmt.Fprintf(w, "%s %s%s%s\n", status, rc.Case, verdict, note)
	}
	parts := []string{
		fmt.Sprintf("%d written", rep.Count(oracle.RecordWrote)),
		fmt.Sprintf("%d kept", rep.Count(oracle.RecordKept)),
	}
	for _, x := range []struct {
		n    int
		what string
	}{{rep.Count(oracle.RecordRemoved), "removed"}, {rep.Count(oracle.RecordObsolete), "obsolete"}, {rep.Count(oracle.RecordRefused), "refused"}, {rep.Count(oracle.RecordError), "failed"}, {rep.Count(oracle.RecordNotWritten), "not written"}} {
		if x.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", x.n, x.what))
		}
	}
	fmt.Fprintln(w, strings.Join(parts, ", "))
}

func diffCommand() *cli.Command {
	return &cli.Command{
		Name:      "diff",
		Usage:     "compare two artifact files, run folders or baseline trees",
		ArgsUsage: "A B",
		Description: "Shows the semantic difference between A and B: each change as a JSON Pointer with the old and\n" +
			"new value, grouped by file, and invisible differences (CRLF, BOM, final newline, key order) named.\n" +
			"Reads artifacts written by the original TypeScript runner too.\n" +
			"Exit status: 0 no difference, 1 different, 2 trouble (a file that is not JSON is trouble).",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "all", Usage: "also compare run.json and *.jsonl files, which carry timestamps"},
			&cli.BoolFlag{Name: "json", Usage: "print the differences as JSON"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 2 {
				return usageError("diff takes two paths, A and B, got %d arguments", c.NArg())
			}
			diffs, err := oracle.DiffPaths(c.Args().Get(0), c.Args().Get(1), c.Bool("all"))
			if err != nil {
				return err
			}
			if c.Bool("json") {
				if err := writeJSON(c.App.Writer, struct {
					FormatVersion int               `json:"formatVersion"`
					Differences   []oracle.PathDiff `json:"differences"`
				}{FormatVersion, nonNil(diffs)}); err != nil {
					return err
				}
			} else if err := render.PathDiffs(c.App.Writer, diffs, newStyle(c, c.App.Writer).colors()); err != nil {
				return err
			}
			unreadable := false
			for _, d := range diffs {
				if d.Diff.State == oracle.FileUnreadable {
					fmt.Fprintf(c.App.ErrWriter, "error: diff: %s: %s\n", d.Path, d.Diff.Error)
					unreadable = true
				}
			}
			switch {
			case unreadable:
				return exitCode(ExitTrouble)
			case len(diffs) > 0:
				return exitCode(ExitChanged)
			}
			return nil
		},
	}
}

// reworded is a library error worded for the command line, which still
// matches what it rewords.
type reworded struct {
	msg string
	err error
}

func (r *reworded) Error() string { return r.msg }
func (r *reworded) Unwrap() error { return r.err }

// flagSelectError words the error of a selection that holds no case with
// the flags that made it, and names the --agent flag in the error of a
// selection that names an exec agent, and the command that rolls one.
func flagSelectError(err error) error {
	if nc, ok := errors.AsType[*oracle.NoCaseError](err); ok {
		// the patterns as the flags that gave them
		return &reworded{err: err, msg: nc.Describe(func(kind, quoted string) string { return "--" + kind + " " + quoted },
			"make a case with oracle record --agent replay:PATH")}
	}
	ex, ok := errors.AsType[*oracle.ExecAgentError](err)
	if !ok {
		return err
	}
	e, _ := errors.AsType[*env.Error](err)
	if e == nil {
		return err
	}
	return &env.Error{Code: e.Code, Known: e.Known, Err: ex, Message: fmt.Sprintf(
		"--agent %s names no case: cases are the regression agents of the environments and the replay cases under %s; roll an exec agent with oracle run --agent %s", ex.Agent, oracle.TracesDir, ex.Agent)}
}
