package runner

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/agent-oracle/oracle/env"
)

// Resolve returns the agent a reference names: the name of a Go agent built
// into e, exec:COMMAND for an external process, or replay:PATH for a
// recorded trace (a relative PATH is relative to the current folder). It is
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
}

// Resolve returns the agent ref names in e; see the package function
// Resolve. A replay's trace is read and parsed here, so a missing or
// garbled trace is an error before the rollout starts.
func (r Resolver) Resolve(e env.Environment, ref string) (env.Agent, error) {
	switch {
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

// references spells the kinds of reference r resolves besides built-in
// agents: exec:COMMAND, replay:PATH and each scheme's SCHEME:ARG, sorted.
func (r Resolver) references() string {
	refs := []string{"exec:COMMAND", "replay:PATH"}
	schemes := slices.Sorted(maps.Keys(r.Schemes))
	for _, s := range schemes {
		refs = append(refs, s+":ARG")
	}
	if len(refs) == 2 {
		return refs[0] + " or " + refs[1]
	}
	return strings.Join(refs[:len(refs)-1], ", ") + " or " + refs[len(refs)-1]
}
