package command

import (
	"path/filepath"

	"github.com/agent-oracle/oracle/command/internal/scaffold"
	"github.com/agent-oracle/oracle/env"
	"github.com/urfave/cli/v2"
)

// initForeign is init --lang ts|python: an environment as a module of the
// original runner's contract (TypeScript) or for the Python host, in the
// environment's folder of the project, which the stock binary serves.
func (o *initOptions) initForeign(c *cli.Context, lang, name string) error {
	switch lang {
	case scaffold.LangTS, scaffold.LangPython:
	default:
		return usageError("--lang %q is not go, ts or python", lang)
	}
	if flag := o.given(c, &o.Out, &o.Module, &o.OraclePath, &o.WithBuiltins); flag != "" {
		return usageError("%s is for a Go environment; --lang %s writes the module into .silo/environments/%s and needs no Go", flag, lang, name)
	}
	if err := env.CheckName(name); err != nil {
		return usageError("environment name: %v", err)
	}
	files, err := scaffold.Foreign(lang, name, o.Description, Version)
	if err != nil {
		return err
	}
	project := projectDir(c)
	plan := &initPlan{project: project}
	folder := filepath.Join(project, ".silo", "environments", name)
	for _, f := range files {
		plan.create(filepath.Join(folder, filepath.FromSlash(f.Path)), f.Data)
	}
	if err := plan.ignoreFiles(); err != nil {
		return err
	}
	prog := c.App.Name
	solver := "solver.agent.ts"
	need := "TypeScript loads through tsx: install it in the project with npm install --save-dev tsx (or set ORACLE_TSX)."
	if lang == scaffold.LangPython {
		solver = "solver.agent.mjs"
		need = "The Python host needs python3; the solver module runs in Node 20 or newer."
	}
	plan.next = []string{
		"Next:",
		"  " + prog + " validate   # check the environment against the authoring contract",
		"  " + prog + " record     # freeze each task's rollout by solver as a baseline",
		"  " + prog + " check      # the CI gate: re-run every case and compare",
		"Then write " + solver + " and the verifier, and record again. " + need,
	}
	if err := plan.check(); err != nil {
		return err
	}
	return plan.write(c.App.Writer, c.App.ErrWriter)
}
