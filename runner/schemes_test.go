package runner

import (
	"errors"
	"strings"
	"testing"

	"github.com/agent-oracle/oracle/env"
)

// Every scheme of env.Schemes has one constructor: the runner's, or for a
// model scheme the one its caller gives (command's modelAgents); a
// reference of a runner's scheme with no ARG is refused with the scheme's
// example.
func TestEverySchemeHasOneConstructor(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range env.Schemes {
		if seen[s.Name] || env.LookupScheme(s.Name) != s {
			t.Errorf("scheme %s is in env.Schemes twice", s.Name)
		}
		seen[s.Name] = true
		if s.Model == (constructors[s] != nil) {
			t.Errorf("scheme %s: model %v, runner's constructor %v; want exactly one of them", s.Name, s.Model, constructors[s] != nil)
		}
		if s.Model {
			continue
		}
		_, err := Resolve(nil, s.Ref(""))
		var e *env.Error
		if !errors.As(err, &e) || e.Code != env.CodeAgentNotFound || !strings.HasSuffix(e.Message, "give one, e.g. "+s.Ref(s.Example)) {
			t.Errorf("%s: %v; want agent_not_found giving the example %s", s.Ref(""), err, s.Ref(s.Example))
		}
	}
	if len(constructors) != len(seen)-len(env.SchemeUsages(func(s *env.Scheme) bool { return s.Model })) {
		t.Errorf("runner has %d constructors for schemes env.Schemes does not hold", len(constructors))
	}
}

// A reference parses into its scheme and ARG, and prints back as given.
func TestParseAgentRef(t *testing.T) {
	for _, tc := range []struct {
		ref    string
		scheme *env.Scheme
		arg    string
	}{
		{"exec:python3 a.py", env.ExecScheme, "python3 a.py"},
		{"replay:x/trace.jsonl", env.ReplayScheme, "x/trace.jsonl"},
		{"openai:gpt-4o", env.OpenAIScheme, "gpt-4o"},
		{"solver", nil, "solver"},
		{"custom:arg", nil, "custom:arg"}, // a scheme the Resolver may be given
		{"exec:", env.ExecScheme, ""},
	} {
		r := env.ParseAgentRef(tc.ref)
		if r.Scheme != tc.scheme || r.Arg != tc.arg || r.String() != tc.ref {
			t.Errorf("ParseAgentRef(%q) = %v %q (%s), want %v %q", tc.ref, r.Scheme, r.Arg, r, tc.scheme, tc.arg)
		}
	}
}
