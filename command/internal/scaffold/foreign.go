package scaffold

import (
	"bytes"
	"embed"
	"fmt"
	"text/template"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/internal/canon"
)

// The languages Foreign scaffolds an environment in.
const (
	LangTS     = "ts"
	LangPython = "python"
)

//go:embed templates/ts/*.tmpl templates/py/*.tmpl
var foreignFiles embed.FS

var foreignTemplates = template.Must(template.ParseFS(foreignFiles, "templates/ts/*.tmpl", "templates/py/*.tmpl"))

// Foreign returns the files of a new environment called name written in
// lang (LangTS or LangPython), relative to its folder
// .silo/environments/<name>: the manifest naming its module and its solver,
// the module (a small state with a clock and a collection, a read and a
// write tool, VER-001 failing on purpose), a reference solver module that
// answers nothing until written, and TASK-001.
func Foreign(lang, name, description, version string) ([]File, error) {
	if err := env.CheckName(name); err != nil {
		return nil, err
	}
	if description == "" {
		description = "TODO: describe the " + name + " environment."
	}
	var module, solver, moduleTmpl, solverTmpl string
	switch lang {
	case LangTS:
		module, solver, moduleTmpl, solverTmpl = "index.ts", "solver.agent.ts", "index.ts.tmpl", "solver.agent.ts.tmpl"
	case LangPython:
		module, solver, moduleTmpl, solverTmpl = "env.py", "solver.agent.mjs", "env.py.tmpl", "solver.agent.mjs.tmpl"
	default:
		return nil, fmt.Errorf("language %q is not %s or %s", lang, LangTS, LangPython)
	}
	data := map[string]string{"Name": comment(name), "Description": comment(description)}
	var files []File
	for _, f := range []struct{ path, tmpl string }{{module, moduleTmpl}, {solver, solverTmpl}} {
		var buf bytes.Buffer
		if err := foreignTemplates.ExecuteTemplate(&buf, f.tmpl, data); err != nil {
			return nil, fmt.Errorf("scaffold %s: %w", f.tmpl, err)
		}
		files = append(files, File{Path: f.path, Data: buf.Bytes()})
	}
	manifest, err := canon.Marshal(env.Manifest{Name: name, Template: "blank-" + lang, TemplateVersion: version,
		Entrypoint: "./" + module, Tools: []string{}, Agents: map[string]string{"solver": env.ModuleScheme.Ref(solver)}})
	if err != nil {
		return nil, err
	}
	if _, err := env.ParseManifest(env.ManifestFile, manifest); err != nil {
		return nil, err
	}
	task, err := TaskFile(firstTask())
	if err != nil {
		return nil, err
	}
	return append([]File{{Path: env.ManifestFile, Data: manifest}}, append(files, task)...), nil
}
