package command

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/agent-oracle/oracle/oracle"
	"github.com/agent-oracle/oracle/oracle/render"
	"github.com/agent-oracle/oracle/oracle/report"
	"github.com/urfave/cli/v2"
)

// checkOptions are check's flags.
type checkOptions struct {
	flags
	cases        caseOptions
	gate         gateOptions
	Format       string
	JSON         bool
	ReportDir    string
	Merge        cli.StringSlice
	Verbose      bool
	MaxCases     int
	Pending      bool
	ShowRedacted bool
}

// checkCommand is oracle check, the CI gate.
func checkCommand(envs Environments) *cli.Command {
	o := &checkOptions{}
	o.cases.add(&o.flags, "only agents matching `glob` (repeatable); the replay cases under .silo/traces are selected by their agent name")
	o.String(&o.Format, &cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "text", Usage: "report `format`: " + render.FormatList()})
	o.Bool(&o.JSON, &cli.BoolFlag{Name: "json", Usage: "same as --format json"})
	o.String(&o.ReportDir, &cli.StringFlag{Name: "report-dir", Usage: "also write the report in every format and the fresh artifacts of the cases that did not match to `DIR` (a folder, made when missing; a symlink planted inside it is refused)"})
	o.Strings(&o.Merge, &cli.StringSliceFlag{Name: "merge", Usage: "do not run: merge the JSON reports (--json) of every shard of one selection in `FILE`s (repeatable); a missing, repeated or foreign shard is trouble"})
	o.Bool(&o.Verbose, &cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "list unchanged cases too, and each result.json change a changed case's headline already says (the fields derived from its checks)"})
	o.Int(&o.MaxCases, &cli.IntFlag{Name: "max-cases", Usage: fmt.Sprintf("list at most `N` cases needing attention in full and count the rest (text, markdown, html; 0: every case, and %d for markdown, which also stays under %d bytes)", render.DefaultMarkdownCases, render.MarkdownBudget)})
	o.Bool(&o.Pending, &cli.BoolFlag{Name: "pending", Usage: "keep in .silo/pending the fresh artifacts of each changed or missing case and a removal for each obsolete one, for the commands review, accept and reject"})
	o.Bool(&o.ShowRedacted, &cli.BoolFlag{Name: "show-redacted", Usage: "list, under each case, the values its environment's \"redact\" rules redacted: the first run's, and a later run's where it differed (JSON text, cut at 200 characters); they are printed, never written to --report-dir"})
	o.gate.checkFlags(&o.flags)
	return &cli.Command{
		Name:  "check",
		Usage: "re-run the cases and compare them with their baselines (the CI gate)",
		Description: "Runs every selected case (environment × regression agent × task) and compares its artifacts\n" +
			"(result.json, state-diff.json, calls.json; see --artifacts) with the baselines in .silo/baselines\n" +
			"byte for byte, once redacted by each environment's \"redact\" rules (docs/redaction.md). Never\n" +
			"writes a baseline.\n" +
			"A name given to --env, --agent or --task that names nothing, or a selection that holds no case,\n" +
			"is trouble, never a pass. With --shard the JSON report names its shard and selection, and --merge\n" +
			"refuses an incomplete set of shards.\n" +
			"A case recorded as a distribution (record --runs N) runs as many times again (--runs overrides) and\n" +
			"its environment and agent's cases are decided together: regression or improvement when the 95%\n" +
			"interval of the mean change in pass rate lies beyond --margin, or a new forbidden effect appears;\n" +
			"otherwise no change the check could detect, with the smallest drop it could have. A run that failed\n" +
			"for the infrastructure is an error, never a fail (docs/statistics.md).\n" +
			"Exit status: 0 all unchanged; 1 changed (a distribution group's regression or improvement too),\n" +
			"missing, obsolete or nondeterministic; 2 trouble (an error, or more runs failed for the infrastructure\n" +
			"than --max-errors allows).",
		Flags:  o.list,
		Action: func(c *cli.Context) error { return o.run(c, envs) },
	}
}

// run checks the selected cases, or merges the reports of --merge.
func (o *checkOptions) run(c *cli.Context, envs Environments) error {
	if c.NArg() > 0 {
		return usageError("check takes no arguments, got %q; select cases with --env, --agent and --task", c.Args().First())
	}
	if o.MaxCases < 0 {
		return usageError("--max-cases %d: give a number of cases, 0 for every case", o.MaxCases)
	}
	name := o.Format
	if o.JSON {
		name = "json"
	}
	format, err := render.Lookup(name)
	if err != nil {
		return usageError("--format %v", err)
	}
	if o.ShowRedacted && format.Name != "text" && format.Name != "json" {
		return usageError("--show-redacted lists the redacted values in the text and json reports, not in --format %s", format.Name)
	}
	if o.isSet(c, &o.ReportDir) {
		dir, err := project(c)
		if err != nil {
			return err
		}
		if err := oracle.CheckReportDir(dir, o.ReportDir); err != nil {
			return usageError("%v", err)
		}
	}
	if merge := o.Merge.Value(); len(merge) > 0 {
		if flag := o.given(c, &o.cases.Env, &o.cases.Agent, &o.cases.Task, &o.cases.Shard, &o.Pending, &o.gate.RerunFrom); flag != "" {
			return usageError("--merge runs no case, so %s selects nothing; the reports say what they hold", flag)
		}
		r, err := oracle.MergeReports(merge)
		if err != nil {
			return err
		}
		return checkStreamed(c, o, format, func(each func(*report.Case, *oracle.Kept) error) (*report.Report, int, error) {
			return mergedCases(c, o, r, each)
		})
	}
	sel, err := o.cases.selection(c)
	if err != nil {
		return err
	}
	opts, sb, err := o.cases.options(c)
	if err != nil {
		return err
	}
	opts.ShowRedacted = o.ShowRedacted
	if err := o.gate.apply(c, &opts); err != nil {
		return err
	}
	if sel, err = o.gate.rerunFrom(c, &o.cases, sel, &opts); err != nil {
		return err
	}
	selected, store, err := selectCases(c, envs, sel, o.cases.artifacts(c))
	if err != nil {
		return err
	}
	whole := selected // the basis is the selection's before sharding, as every shard's
	if sel.Shard.Count > 0 {
		unsharded := sel
		unsharded.Shard = oracle.Shard{}
		if whole, _, err = selectCases(c, envs, unsharded, o.cases.artifacts(c)); err != nil {
			return err
		}
	}
	opts.Basis = o.basis(c, whole)
	if opts.Basis == "" && o.isSet(c, &o.gate.RerunFrom) {
		return usageError("--rerun-from takes cases from a report only when both checks know the commit they ran on (the CI's %s); none is set, so nothing shows that the environments and agents did not change: set it (GITHUB_SHA=$(git rev-parse HEAD) on a clean tree) or run the whole check", strings.Join(commitVars, ", "))
	}
	return checkStreamed(c, o, format, func(each func(*report.Case, *oracle.Kept) error) (*report.Report, int, error) {
		rep, n, err := checkEach(c, o, store, selected, sel, opts, each)
		if rep != nil {
			rep.Sandbox = sb.mode()
		}
		return rep, n, err
	})
}

// reportOptions are the options of a check report written to w:
// the check's output, coloured for a terminal, or with w nil a file of a
// report folder, which lists every case, the folded changes and longer
// values.
func reportOptions(c *cli.Context, opts *checkOptions, w io.Writer) render.Options {
	o := render.Options{Program: c.App.Name, Commands: reportCommands(c), Made: reportMade(time.Now)}
	if dir := opts.ReportDir; dir != "" {
		o.Elsewhere = "every case is in the report folder " + dir + " (index.html, report.txt)"
	}
	if w == nil {
		o.All, o.Verbose, o.MaxValue = true, true, 1000
		return o
	}
	o.Colors, o.All, o.Verbose = newStyle(c, w).colors(), opts.Verbose, opts.Verbose
	o.MaxCases = opts.MaxCases
	return o
}

// reportCommands are the commands a check report suggests.
func reportCommands(c *cli.Context) render.Commands {
	return render.Commands{Record: c.App.Name + " record", Prune: c.App.Name + " record --prune", Unfold: c.App.Name + " check --verbose"}
}

// reportMade says when and from what commit a report is made: the date
// is SOURCE_DATE_EPOCH's when it is set (for a report that is the same
// bytes run after run), the commit and ref the CI's (GitHub Actions,
// GitLab CI, Azure Pipelines, Buildkite, CircleCI, Jenkins).
func reportMade(now func() time.Time) render.Made {
	t := now().UTC()
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		if secs, err := strconv.ParseInt(s, 10, 64); err == nil {
			t = time.Unix(secs, 0).UTC()
		}
	}
	return render.Made{
		Date:   t.Format("2006-01-02 15:04 UTC"),
		Commit: firstEnv(commitVars...),
		Ref:    firstEnv("GITHUB_REF_NAME", "CI_COMMIT_REF_NAME", "BUILD_SOURCEBRANCHNAME", "BUILDKITE_BRANCH", "CIRCLE_BRANCH", "GIT_BRANCH"),
	}
}

// commitVars name the source commit in the CIs reportMade knows.
var commitVars = []string{"GITHUB_SHA", "CI_COMMIT_SHA", "BUILD_SOURCEVERSION", "BUILDKITE_COMMIT", "CIRCLE_SHA1", "GIT_COMMIT"}

// firstEnv is the first of the variables names that is set, trimmed.
func firstEnv(names ...string) string {
	for _, n := range names {
		if v := strings.TrimSpace(os.Getenv(n)); v != "" {
			return v
		}
	}
	return ""
}

// sourceCommit is the commit a check's JSON report says it ran on: the
// CI's (commitVars), else the one the binary was built from (vcs.revision,
// with "+dirty" when its tree was modified), else none. A value a report
// reader would refuse (a control character, over 256 bytes) is none.
func sourceCommit() string {
	commit := firstEnv(commitVars...)
	if commit == "" {
		commit = binaryRevision()
	}
	if len(commit) > 256 || strings.ContainsFunc(commit, unicode.IsControl) {
		return ""
	}
	return commit
}

// binaryRevision is the revision the binary was built from (vcs.revision,
// with "+dirty" when its tree was modified); "" when it does not say.
func binaryRevision() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	var commit string
	var modified bool
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			commit = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if commit != "" && modified {
		commit += "+dirty"
	}
	return commit
}
