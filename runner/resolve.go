package runner

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/env/host"
)

// Resolve returns the agent a reference names: the name of a Go agent built
// into e, exec:COMMAND for an external process, module:PATH for a Node
// module in the original runner's agent shape (see host.ModuleAgent),
// python:PATH for a Python module of that shape (see host.PythonAgentFor),
// or replay:PATH for a recorded trace. A relative PATH is relative to the
// current folder; a declared agent's (a manifest's "agents") was made
// relative to the manifest's folder when it was declared. It is
// Resolver{}.Resolve.
func Resolve(e env.Environment, ref string) (env.Agent, error) {
	return Resolver{}.Resolve(e, ref)
}

// Resolver resolves agent references with options for exec agents.
type Resolver struct {
	// Exec configures exec:COMMAND agents; its Command is the reference's.
	Exec ExecConfig
	// Warn, when not nil, is given the warning of an auto sandbox that
	// falls back to none (bubblewrap missing or not working).
	Warn func(string)
	// Schemes resolves further SCHEME:ARG references, such as the model
	// agents' openai:MODEL, by scheme; the function is given ARG.
	Schemes map[string]func(arg string) (env.Agent, error)
	// Project is the project folder; "" means the current folder.
	Project string
}

// Resolve returns the agent ref names in e; see the package function
// Resolve. A replay's trace is read and parsed here, so a missing or
// garbled trace is an error before the rollout starts. A name e declares
// (env.Declared, a manifest's "agents") is resolved as the reference it
// stands for, with r's options.
func (r Resolver) Resolve(e env.Environment, ref string) (env.Agent, error) {
	if declared, ok := env.AgentRef(e, ref); ok {
		r.Exec.Sandbox.Declared = true
		return r.resolve(e, env.ResolveRef(declared, r.folder(e)))
	}
	return r.resolve(e, ref)
}

func (r Resolver) resolve(e env.Environment, ref string) (env.Agent, error) {
	switch {
	case strings.HasPrefix(ref, "module:"):
		path, err := modulePath("module:", strings.TrimPrefix(ref, "module:"), "tests/solver.agent.ts")
		if err != nil {
			return nil, err
		}
		return host.ModuleAgentFor(e, path)
	case strings.HasPrefix(ref, "python:"):
		path, err := modulePath("python:", strings.TrimPrefix(ref, "python:"), "solver.py")
		if err != nil {
			return nil, err
		}
		return host.PythonAgentFor(e, path)
	case strings.HasPrefix(ref, "exec:"):
		cfg := r.Exec
		cfg.Command = strings.TrimSpace(strings.TrimPrefix(ref, "exec:"))
		if cfg.Command == "" {
			return nil, &env.Error{Code: env.CodeAgentNotFound,
				Message: "exec: names no command; give one, e.g. exec:python3 /path/to/agent.py"}
		}
		return execAgentFor(cfg, r.Warn)
	case strings.HasPrefix(ref, "replay:"):
		path := strings.TrimPrefix(ref, "replay:")
		if path == "" {
			return nil, &env.Error{Code: env.CodeAgentNotFound,
				Message: "replay: names no trace; give one, e.g. replay:.silo/runs/<runId>/trace.jsonl"}
		}
		rec, err := ReadTrace(path)
		if err != nil {
			return nil, err
		}
		return ReplayAgent(rec), nil
	}
	if scheme, arg, ok := strings.Cut(ref, ":"); ok && r.Schemes[scheme] != nil {
		return r.Schemes[scheme](arg)
	}
	if a, ok := e.Agent(ref); ok {
		return a, nil
	}
	names := e.Agents()
	others := r.references()
	if len(names) == 0 {
		return nil, &env.Error{Code: env.CodeAgentNotFound,
			Message: fmt.Sprintf("no agent %s in %s, which has no built-in agents; use %s", ref, e.Name(), others)}
	}
	return nil, &env.Error{Code: env.CodeAgentNotFound, Known: names,
		Message: fmt.Sprintf("no agent %s in %s; built-in agents: %s, or %s", ref, e.Name(), strings.Join(names, ", "), others)}
}

// folder is the folder of e's manifest, which a declared agent's relative
// paths are relative to: e's own folder (an environment of a host), or
// else .silo/environments/<name> of r.Project.
func (r Resolver) folder(e env.Environment) string {
	if f, ok := e.(interface{ Folder() string }); ok && f.Folder() != "" {
		return f.Folder()
	}
	folder, err := filepath.Abs(filepath.Join(r.Project, ".silo", "environments", e.Name()))
	if err != nil {
		return filepath.Join(r.Project, ".silo", "environments", e.Name())
	}
	return folder
}

// modulePath is the absolute path of a module agent's reference (scheme
// and path; example is a path to suggest): a relative path is relative to
// the current folder.
func modulePath(scheme, path, example string) (string, error) {
	if path == "" {
		return "", &env.Error{Code: env.CodeAgentNotFound,
			Message: fmt.Sprintf("%s names no module; give one, e.g. %s%s", scheme, scheme, example)}
	}
	return filepath.Abs(filepath.FromSlash(path))
}

// references spells the kinds of reference r resolves besides built-in
// agents: exec:COMMAND, replay:PATH and each scheme's SCHEME:ARG, sorted.
func (r Resolver) references() string {
	refs := []string{"exec:COMMAND", "module:PATH", "python:PATH", "replay:PATH"}
	schemes := slices.Sorted(maps.Keys(r.Schemes))
	for _, s := range schemes {
		refs = append(refs, s+":ARG")
	}
	return strings.Join(refs[:len(refs)-1], ", ") + " or " + refs[len(refs)-1]
}
