package env

import (
	"strings"
)

// Needs is what an agent of a scheme needs to run, beside the
// environment.
type Needs uint8

const (
	// NeedsSandbox: a process of its own, contained by the runner's
	// sandbox (--sandbox, --agent-net, --agent-ro).
	NeedsSandbox Needs = 1 << iota
	// NeedsNetwork: the network, to reach a model provider's API.
	NeedsNetwork
	// NeedsHost: a host process of the module's language (Node, Python).
	NeedsHost
)

// A Scheme is a kind of agent reference, SCHEME:ARG, beside the name of an
// agent an environment has (built in, or declared by its manifest).
type Scheme struct {
	Name    string // "exec"
	Arg     string // what ARG is, in help: "COMMAND"
	Example string // an ARG to suggest when the reference gives none
	Path    bool   // ARG is a path: a declared agent's is relative to its manifest's folder
	Needs   Needs
	Model   bool // behind a model provider's API: its bytes rarely repeat
}

// The schemes of agent references, each one row of Schemes.
var (
	ExecScheme      = &Scheme{Name: "exec", Arg: "COMMAND", Example: "python3 /path/to/agent.py", Needs: NeedsSandbox}
	ModuleScheme    = &Scheme{Name: "module", Arg: "PATH", Example: "tests/solver.agent.ts", Path: true, Needs: NeedsHost}
	PythonScheme    = &Scheme{Name: "python", Arg: "PATH", Example: "solver.py", Path: true, Needs: NeedsHost}
	ReplayScheme    = &Scheme{Name: "replay", Arg: "PATH", Example: ".silo/runs/<runId>/trace.jsonl", Path: true}
	OpenAIScheme    = &Scheme{Name: "openai", Arg: "MODEL", Example: "gpt-4o-mini", Needs: NeedsNetwork, Model: true}
	AnthropicScheme = &Scheme{Name: "anthropic", Arg: "MODEL", Example: "claude-sonnet-4-5", Needs: NeedsNetwork, Model: true}
)

// Schemes is the table of agent reference schemes that parsing
// (ParseAgentRef), resolution (runner), validation, help and completion
// read. A new scheme is a row here and its constructor: runner's, or for a
// model agent command's (a test of each walks this table).
var Schemes = []*Scheme{ExecScheme, ModuleScheme, PythonScheme, ReplayScheme, OpenAIScheme, AnthropicScheme}

// Prefix is the scheme as a reference starts with it: "exec:".
func (s *Scheme) Prefix() string { return s.Name + ":" }

// Ref is the reference of the scheme with arg: "replay:" + arg.
func (s *Scheme) Ref(arg string) string { return s.Prefix() + arg }

// Usage is the scheme as help writes it: "exec:COMMAND".
func (s *Scheme) Usage() string { return s.Prefix() + s.Arg }

// Has reports whether the scheme needs n.
func (s *Scheme) Has(n Needs) bool { return s.Needs&n != 0 }

// LookupScheme is the scheme called name, or nil.
func LookupScheme(name string) *Scheme {
	for _, s := range Schemes {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// AgentReference is an agent reference, parsed: SCHEME:ARG of a scheme of
// Schemes, or else a name (an agent the environment has, or a scheme
// the runner is given besides: Scheme nil).
type AgentReference struct {
	Scheme *Scheme // nil for a name
	Arg    string  // the reference after SCHEME:, or the whole name
}

// ParseAgentRef parses ref.
func ParseAgentRef(ref string) AgentReference {
	if name, arg, ok := strings.Cut(ref, ":"); ok {
		if s := LookupScheme(name); s != nil {
			return AgentReference{Scheme: s, Arg: arg}
		}
	}
	return AgentReference{Arg: ref}
}

// String is the reference as written.
func (r AgentReference) String() string {
	if r.Scheme == nil {
		return r.Arg
	}
	return r.Scheme.Ref(r.Arg)
}

// Is reports whether the reference is of scheme s.
func (r AgentReference) Is(s *Scheme) bool { return r.Scheme == s }

// CutScheme is the ARG of ref when ref is of scheme s: replay:PATH's PATH.
func CutScheme(ref string, s *Scheme) (arg string, ok bool) {
	r := ParseAgentRef(ref)
	return r.Arg, r.Is(s)
}

// IsModel reports whether ref names an agent behind a model provider's
// API (openai:MODEL, anthropic:MODEL).
func IsModel(ref string) bool {
	s := ParseAgentRef(ref).Scheme
	return s != nil && s.Model
}

// SchemeUsages lists the schemes that pass keep as help writes them, in
// the table's order: "exec:COMMAND", "replay:PATH", ….
func SchemeUsages(keep func(*Scheme) bool) []string {
	var out []string
	for _, s := range Schemes {
		if keep == nil || keep(s) {
			out = append(out, s.Usage())
		}
	}
	return out
}
