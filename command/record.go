package command

import (
	"fmt"
	"github.com/agent-oracle/oracle/internal/cassette"
	"io"
	"strings"

	"github.com/agent-oracle/oracle/oracle"
	"github.com/agent-oracle/oracle/runner"
	"github.com/urfave/cli/v2"
)

// recordOptions are record's flags.
type recordOptions struct {
	flags
	cases caseOptions
	gate  gateOptions
	Prune bool
	JSON  bool
}

// recordCommand is oracle record, which freezes the selected cases as baselines.
func recordCommand(envs Environments) *cli.Command {
	o := &recordOptions{}
	o.cases.add(&o.flags, "only agents matching `glob` (repeatable), or replay:PATH, which makes the recorded trace.jsonl at PATH a case and freezes it")
	o.Bool(&o.Prune, &cli.BoolFlag{Name: "prune", Usage: "remove obsolete baselines (baselines with no case)"})
	o.Bool(&o.JSON, &cli.BoolFlag{Name: "json", Usage: "print what was done as JSON"})
	o.gate.recordFlags(&o.flags)
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
			"The artifacts are frozen redacted by the environment's \"redact\" rules (docs/redaction.md); for a\n" +
			"refused case, record proposes the rules that would make its runs agree, and applies none.\n" +
			"With --runs N every selected case is recorded as a distribution instead: N runs from fresh worlds,\n" +
			"their outcomes counted in <TASK>.stats.json, for agents whose bytes never repeat (models); check\n" +
			"then compares pass rates over the tasks. A case recorded as the other kind than its baseline's has\n" +
			"its old files replaced, and record says so.\n" +
			"Exit status: 0 recorded; 1 a case was refused; 2 trouble (an error, a case whose runs all failed for\n" +
			"the infrastructure, or more such runs than --max-errors allows: nothing is written then).",
		Flags:  o.list,
		Action: func(c *cli.Context) error { return o.run(c, envs) },
	}
}

// run records the selected cases.
func (o *recordOptions) run(c *cli.Context, envs Environments) error {
	if c.NArg() > 0 {
		return usageError("record takes no arguments, got %q; select cases with --env, --agent and --task", c.Args().First())
	}
	sel, err := o.cases.selection(c)
	if err != nil {
		return err
	}
	if _, err := project(c); err != nil {
		return err
	}
	if sel, err = importReplays(c, envs, sel, o.cases.agents.Env.Value()); err != nil {
		return err
	}
	opts, sb, err := o.cases.options(c)
	if err != nil {
		return err
	}
	if opts.Repeat < 2 {
		return usageError("--repeat must be at least 2: record compares two runs before it freezes a case")
	}
	if err := o.gate.recordRuns(c, &o.cases, &opts); err != nil {
		return err
	}
	selected, store, err := selectCases(c, envs, sel, o.cases.artifacts(c))
	if err != nil {
		return err
	}
	if opts.Distribution.Runs < 2 && o.cases.agents.ModelCache == string(cassette.ModeOff) {
		// a cassette makes a model agent's bytes repeat
		warnModelBytes(c.App.ErrWriter, selected)
	}
	rep, err := oracle.Record(c.Context, store, selected.Cases, sel, oracle.RecordOptions{Options: opts, Prune: o.Prune})
	if err != nil {
		return err
	}
	if o.JSON {
		if err := writeJSON(c.App.Writer, struct {
			FormatVersion int `json:"formatVersion"`
			// Sandbox is how the exec agents were contained
			// (see sandboxes.mode); absent when none ran.
			Sandbox runner.SandboxMode `json:"sandbox,omitempty"`
			*oracle.RecordReport
		}{FormatVersion, sb.mode(), rep}); err != nil {
			return err
		}
	} else {
		printRecord(c.App.Writer, newStyle(c, c.App.Writer), rep, projectDir(c))
	}
	for _, rc := range rep.Cases {
		if rc.Status == oracle.RecordError {
			fmt.Fprintf(c.App.ErrWriter, "error: %s: %s\n", safe(rc.Case), safe(rc.Error))
		}
	}
	printRecordGroups(c.App.ErrWriter, rep)
	if rep.Infrastructure != nil && rep.Infrastructure.Trouble() {
		fmt.Fprintf(c.App.ErrWriter, "error: %v; nothing was written\n", rep.Infrastructure.Err())
		return exitCode(ExitTrouble)
	}
	if code := recordExit(rep); code != ExitOK {
		return exitCode(code)
	}
	return nil
}

func printRecord(w io.Writer, s *style, rep *oracle.RecordReport, project string) {
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
			if rc.Divergence != nil {
				note = "  nondeterministic: " + safe(rc.Divergence.String())
			}
		case oracle.RecordError:
			status = s.Bad(status)
			note = "  " + safe(rc.Error)
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
			verdict = s.Dim(" (" + safe(string(rc.Verdict)) + ")")
		}
		verdict += s.Dim(recordedNote(rc))
		fmt.Fprintf(w, "%s %s%s%s\n", status, safe(rc.Case), verdict, note)
	}
	printProposals(w, s, rep, project)
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
