package env

import (
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Declared is implemented by an environment whose regression agents are
// declared by reference, as a manifest's "agents" declares them: AgentRef
// returns the reference (module:PATH, exec:COMMAND, a Go agent's name, …)
// that the agent called name stands for. The runner resolves a declared
// name through it (runner.Resolver), so a case keyed by the name
// (crm/solver/TASK-001) runs the agent the reference names.
type Declared interface {
	AgentRef(name string) (ref string, ok bool)
}

// AgentRef returns the reference e declares for the agent called name.
func AgentRef(e Environment, name string) (string, bool) {
	if d, ok := e.(Declared); ok {
		return d.AgentRef(name)
	}
	return "", false
}

// checkAgents checks the "agents" of a manifest: names that CheckName
// accepts, and a reference for each.
func checkAgents(agents map[string]string) error {
	for _, name := range slices.Sorted(maps.Keys(agents)) {
		if err := CheckName(name); err != nil {
			return fmt.Errorf("agent name: %w", err)
		}
		if strings.TrimSpace(agents[name]) == "" {
			return fmt.Errorf("agent %s has no reference; give one, e.g. \"module:../../../tests/solver.agent.ts\"", name)
		}
	}
	return nil
}

// DeclaredAgents returns the manifest's agents with the paths of their
// references made absolute from the environment's folder
// (.silo/environments/<name> under projectDir), where they are relative
// (see ResolveRef).
func (m Manifest) DeclaredAgents(projectDir string) map[string]string {
	if len(m.Agents) == 0 {
		return nil
	}
	folder, err := filepath.Abs(filepath.Join(projectDir, ".silo", "environments", m.Name))
	if err != nil {
		folder = filepath.Join(projectDir, ".silo", "environments", m.Name)
	}
	out := make(map[string]string, len(m.Agents))
	for name, ref := range m.Agents {
		out[name] = ResolveRef(ref, folder)
	}
	return out
}

// ResolveRef makes the path of a reference whose scheme's ARG is a path
// (module:, python:, replay:) absolute, relative to folder, and each word
// of an exec: command that names a file of folder (exec:python3
// solver.py); other references are returned as they are.
func ResolveRef(ref, folder string) string {
	r := ParseAgentRef(ref)
	switch {
	case r.Is(ExecScheme):
		return ExecScheme.Ref(resolveCommand(r.Arg, folder))
	case r.Scheme != nil && r.Scheme.Path && r.Arg != "" && !filepath.IsAbs(filepath.FromSlash(r.Arg)):
		return r.Scheme.Ref(filepath.Join(folder, filepath.FromSlash(r.Arg)))
	}
	return ref
}

// resolveCommand makes absolute each word of a command that is a relative
// path naming a regular file in folder. A command with quoting or other
// shell syntax is left as it is: its words are not plain.
func resolveCommand(cmd, folder string) string {
	words := strings.Fields(cmd)
	if strings.ContainsAny(cmd, "'\"\\$`|&;<>()*?[]{}~#") {
		return cmd
	}
	changed := false
	for i, w := range words {
		p := filepath.FromSlash(w)
		if filepath.IsAbs(p) || strings.HasPrefix(w, "-") || (i == 0 && !strings.Contains(w, "/")) {
			continue
		}
		abs := filepath.Join(folder, p)
		if fi, err := os.Stat(abs); err == nil && fi.Mode().IsRegular() && !strings.ContainsAny(abs, " \t\n'\"\\$`") {
			words[i], changed = abs, true
		}
	}
	if !changed {
		return cmd
	}
	return strings.Join(words, " ")
}

// WithAgents returns e with further regression agents declared by
// reference (a manifest's "agents" for an environment of Go): they join
// e's own regression agents, and AgentRef names their references. A
// declared name that e already has as an agent is an error. e's candidate
// files stay its own.
func WithAgents(e Environment, agents map[string]string) (Environment, error) {
	if len(agents) == 0 {
		return e, nil
	}
	for _, name := range slices.Sorted(maps.Keys(agents)) {
		if _, ok := e.Agent(name); ok {
			return nil, fmt.Errorf("environment %s: agent %s is declared in %s and built into the environment; rename one",
				e.Name(), name, filepath.ToSlash(ManifestPath(e.Name())))
		}
	}
	return &declaredEnv{Environment: e, agents: agents}, nil
}

type declaredEnv struct {
	Environment
	agents map[string]string
}

func (d *declaredEnv) RegressionAgents() []string {
	names := append(d.Environment.RegressionAgents(), slices.Collect(maps.Keys(d.agents))...)
	slices.Sort(names)
	return slices.Compact(names)
}

func (d *declaredEnv) AgentRef(name string) (string, bool) {
	ref, ok := d.agents[name]
	return ref, ok
}

func (d *declaredEnv) CandidateFiles() fs.FS { return CandidateFiles(d.Environment) }

// AgentNames returns the agents of e by name, sorted: its Go agents and
// the regression agents it declares by reference.
func AgentNames(e Environment) []string {
	names := e.Agents()
	for _, name := range e.RegressionAgents() {
		if _, ok := AgentRef(e, name); ok {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}
