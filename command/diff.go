package command

import (
	"fmt"

	"github.com/agent-oracle/oracle/oracle"
	"github.com/agent-oracle/oracle/oracle/render"
	"github.com/urfave/cli/v2"
)

// diffOptions are diff's flags.
type diffOptions struct {
	flags
	All, JSON bool
}

// diffCommand is oracle diff, the semantic diff of two artifacts or folders.
func diffCommand() *cli.Command {
	o := &diffOptions{}
	o.Bool(&o.All, &cli.BoolFlag{Name: "all", Usage: "also compare run.json and *.jsonl files, which carry timestamps"})
	o.Bool(&o.JSON, &cli.BoolFlag{Name: "json", Usage: "print the differences as JSON"})
	return &cli.Command{
		Name:      "diff",
		Usage:     "compare two artifact files, run folders or baseline trees",
		ArgsUsage: "A B",
		Description: "Shows the semantic difference between A and B: each change as a JSON Pointer with the old and\n" +
			"new value, grouped by file, and invisible differences (CRLF, BOM, final newline, key order) named.\n" +
			"A run folder against a case folder (a baseline agent folder, .silo/baselines/ENV/AGENT, or a\n" +
			"report folder's fresh/ENV/AGENT), in either order, compares the run with the case it is a run\n" +
			"of: the task of its run.json (or trace) picks TASK.result.json, TASK.state-diff.json and\n" +
			"TASK.calls.json out of the case folder (with --all TASK.trace.jsonl too; run.json has no\n" +
			"counterpart there).\n" +
			"Reads artifacts written by the original TypeScript runner too.\n" +
			"Exit status: 0 no difference, 1 different, 2 trouble (a file that is not JSON is trouble).",
		Flags:  o.list,
		Action: func(c *cli.Context) error { return o.run(c) },
	}
}

// run compares A and B.
func (o *diffOptions) run(c *cli.Context) error {
	if c.NArg() != 2 {
		return usageError("diff takes two paths, A and B, got %d arguments", c.NArg())
	}
	diffs, err := oracle.DiffPaths(c.Args().Get(0), c.Args().Get(1), o.All)
	if err != nil {
		return err
	}
	if o.JSON {
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
}
