package command

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/agent-oracle/oracle/internal/safetext"

	"github.com/agent-oracle/oracle/command/internal/scaffold"
	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/env/host"
	"github.com/agent-oracle/oracle/oracle"
	"github.com/urfave/cli/v2"
)

// validateOptions are validate's flags.
type validateOptions struct {
	flags
	Env  string
	JSON bool
}

func validateCommand(envs Environments) *cli.Command {
	o := &validateOptions{}
	o.String(&o.Env, &cli.StringFlag{Name: envFlag, Aliases: []string{"e"}, Usage: "only this environment"})
	o.Bool(&o.JSON, &cli.BoolFlag{Name: "json", Usage: "print the reports as JSON"})
	return &cli.Command{
		Name:      "validate",
		Usage:     "check environments against the authoring contract without running an agent",
		ArgsUsage: " ",
		Description: "Checks that tasks load and name registered verifiers, that every verifier's task exists and is used,\n" +
			"that tool input schemas compile, that NewState works and is deterministic for every task, that the\n" +
			"regression agents exist, and that the project's manifest for the environment, if any, is right,\n" +
			"its redaction rules included: a rule whose path selects nothing in the environment's baselines,\n" +
			"or that names an artifact the environment does not freeze, is a warning.\n" +
			"Prints one line per finding and a summary per environment.\n" +
			"Exit status: 0 no error finding, 1 an error finding, 2 trouble.",
		Flags:  o.list,
		Action: func(c *cli.Context) error { return o.run(c, envs) },
	}
}

// run validates the selected environments.
func (o *validateOptions) run(c *cli.Context, envs Environments) error {
	if c.NArg() > 0 {
		return usageError("validate takes no arguments, got %q; name an environment with --env", c.Args().First())
	}
	list, err := selectEnvs(envs, o.Env)
	if err != nil {
		return err
	}
	reports := make([]env.ValidationReport, len(list))
	ok := true
	for i, e := range list {
		reports[i] = env.Validate(e, projectDir(c))
		if err := unreachedConstructors(&reports[i], projectDir(c), c.App.Name); err != nil {
			return err
		}
		for _, f := range oracle.RedactionFindings(projectDir(c), e, openStore(c, projectDir(c))) {
			reports[i].Findings = append(reports[i].Findings, f)
			reports[i].OK = reports[i].OK && f.Level != env.LevelError
		}
		ok = ok && reports[i].OK
		for j := range reports[i].Findings {
			_, module := e.(*host.Environment)
			nameCommands(&reports[i].Findings[j], e.Name(), c.App.Name, module)
		}
	}
	if o.JSON {
		err = writeJSON(c.App.Writer, struct {
			FormatVersion int                    `json:"formatVersion"`
			OK            bool                   `json:"ok"`
			Reports       []env.ValidationReport `json:"reports"`
		}{FormatVersion, ok, reports})
	} else {
		printValidation(c.App.Writer, newStyle(c, c.App.Writer), reports)
	}
	if err != nil {
		return err
	}
	if !ok {
		return exitCode(ExitChanged)
	}
	return nil
}

// nameCommands words the findings that suggest a command with the
// program's name: env words them with oracle's.
func nameCommands(f *env.Finding, envName, program string, module bool) {
	switch {
	case module && f.Code == "verifier_not_found" && f.Verifier != "":
		f.Message = fmt.Sprintf("task %s names verifier %s, which %s does not register; add it to the verifiers its module exports, or fix the task's verifierId",
			f.Task, f.Verifier, envName)
	case module && f.Code == "no_regression_agent":
		f.Message = fmt.Sprintf("%s has no regression agent, so %s record and check have no case for it; declare its solver in the \"agents\" of its manifest", envName, program)
	case f.Code == "verifier_not_found" && f.Verifier != "":
		f.Message = fmt.Sprintf("task %s names verifier %s, which %s does not register; add it with %s verifier add %s --env %s --task %s, or fix the task's verifierId",
			f.Task, f.Verifier, envName, program, f.Verifier, envName, f.Task)
	case f.Code == "no_regression_agent":
		f.Message = fmt.Sprintf("%s has no regression agent, so %s record and check have no case for it; add a reference solver to Definition.Agents", envName, program)
	}
}

// unreachedConstructors adds a finding to r for each tool or verifier
// constructor in the environment's package (found through its manifest in
// the project) that nothing in the package calls: a tool or verifier
// written but never registered.
func unreachedConstructors(r *env.ValidationReport, project, program string) error {
	if _, err := os.Lstat(filepath.Join(project, env.ManifestPath(r.Environment))); err != nil {
		return nil // no manifest: the package is not known, or validate reported the manifest
	}
	m, err := env.LoadManifest(project, r.Environment)
	if err != nil {
		return nil // validate's manifest_invalid finding says why
	}
	files, err := readPackage(m.Dir(project))
	if err != nil {
		return nil
	}
	unreached, err := scaffold.Unreached(files)
	if err != nil {
		return nil // a package that does not parse does not build either
	}
	for _, u := range unreached {
		r.Findings = append(r.Findings, env.Finding{Level: env.LevelError, Code: "constructor_unreached",
			Message: fmt.Sprintf("%s %s in %s/%s is never registered, so %s does not serve it; run %s generate --env %s, or remove it",
				u.Kind, u.Name, m.Entrypoint, u.File, r.Environment, program, r.Environment)})
		r.OK = false
	}
	return nil
}

// printValidation prints one line per finding and a summary line per
// environment.
func printValidation(w io.Writer, s *style, reports []env.ValidationReport) {
	for _, r := range reports {
		for _, f := range r.Findings {
			level := s.Warn(string(f.Level))
			if f.Level == env.LevelError {
				level = s.Bad(string(f.Level))
			}
			fmt.Fprintf(w, "%s: %s %s: %s\n", safetext.LineStart(r.Environment), level, safe(string(f.Code)), safe(f.Message))
		}
		verdict := s.Good("ok")
		if !r.OK {
			verdict = s.Bad("invalid")
		}
		n := r.Counts
		fmt.Fprintf(w, "%s: %s · %s, %s, %s, %s · %s, %s\n", s.Bold(safetext.LineStart(r.Environment)), verdict,
			plural(n.Tasks, "task"), plural(n.Tools, "tool"), plural(n.Verifiers, "verifier"), plural(n.Agents, "agent"),
			plural(r.Errors(), "error"), plural(r.Warnings(), "warning"))
	}
}

// plural writes n and a noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
