package command

import (
	"bytes"
	"io"

	"github.com/agent-oracle/oracle/oracle"
	"github.com/agent-oracle/oracle/oracle/render"
	"github.com/urfave/cli/v2"
)

// checkCommand is oracle check, the CI gate.
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
			opts, sb, err := options(c)
			if err != nil {
				return err
			}
			selected, store, err := selectCases(c, envs, sel)
			if err != nil {
				return err
			}
			return checkStreamed(c, format, func(each func(*oracle.CaseReport, *oracle.Kept) error) (*oracle.Report, int, error) {
				rep, n, err := checkEach(c, store, selected, sel, opts, each)
				if rep != nil {
					rep.Sandbox = sb.mode()
				}
				return rep, n, err
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
