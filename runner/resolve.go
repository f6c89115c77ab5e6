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
	if parsed := env.ParseAgentRef(ref); parsed.Scheme != nil && constructors[parsed.Scheme] != nil {
		return constructors[parsed.Scheme](r, e, parsed.Scheme, parsed.Arg)
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

// constructors make the agents of the schemes of env.Schemes that the
// runner resolves itself; a model scheme's constructor is the Resolver's
// (Schemes), which its caller gives it.
var constructors = map[*env.Scheme]func(r Resolver, e env.Environment, s *env.Scheme, arg string) (env.Agent, error){
	env.ExecScheme: func(r Resolver, _ env.Environment, s *env.Scheme, arg string) (env.Agent, error) {
		cfg := r.Exec
		if cfg.Command = strings.TrimSpace(arg); cfg.Command == "" {
			return nil, noArg(s, "command")
		}
		return execAgentFor(cfg, r.Warn)
	},
	env.ModuleScheme: func(_ Resolver, e env.Environment, s *env.Scheme, arg string) (env.Agent, error) {
		path, err := modulePath(s, arg)
		if err != nil {
			return nil, err
		}
		return host.ModuleAgentFor(e, path)
	},
	env.PythonScheme: func(_ Resolver, e env.Environment, s *env.Scheme, arg string) (env.Agent, error) {
		path, err := modulePath(s, arg)
		if err != nil {
			return nil, err
		}
		return host.PythonAgentFor(e, path)
	},
	env.ReplayScheme: func(_ Resolver, _ env.Environment, s *env.Scheme, arg string) (env.Agent, error) {
		if arg == "" {
			return nil, noArg(s, "trace")
		}
		rec, err := ReadTrace(arg)
		if err != nil {
			return nil, err
		}
		return ReplayAgent(rec), nil
	},
}

// noArg is the error of a reference of s that names no what.
func noArg(s *env.Scheme, what string) error {
	return &env.Error{Code: env.CodeAgentNotFound,
		Message: fmt.Sprintf("%s names no %s; give one, e.g. %s", s.Prefix(), what, s.Ref(s.Example))}
}

// modulePath is the absolute path of a module agent's reference of scheme
// s: a relative path is relative to the current folder.
func modulePath(s *env.Scheme, path string) (string, error) {
	if path == "" {
		return "", noArg(s, "module")
	}
	return filepath.Abs(filepath.FromSlash(path))
}

// references spells the kinds of reference r resolves besides built-in
// agents: exec:COMMAND, replay:PATH and each scheme's SCHEME:ARG, sorted.
func (r Resolver) references() string {
	refs := env.SchemeUsages(func(s *env.Scheme) bool { return constructors[s] != nil })
	schemes := slices.Sorted(maps.Keys(r.Schemes))
	for _, s := range schemes {
		refs = append(refs, s+":ARG")
	}
	return strings.Join(refs[:len(refs)-1], ", ") + " or " + refs[len(refs)-1]
}
