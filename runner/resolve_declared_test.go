package runner

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/agent-oracle/oracle/env"
)

// TestResolveDeclared: a name an environment declares (a manifest's
// "agents") resolves as the reference it stands for, whichever kind of
// reference that is, with the resolver's options; a declared name that
// stands for itself is a Go agent's name, not a loop.
func TestResolveDeclared(t *testing.T) {
	t.Parallel()
	model := env.AgentFunc(func(context.Context, env.AgentInput) (any, error) { return "from the model", nil })
	var gotModel string
	r := Resolver{Schemes: map[string]func(string) (env.Agent, error){"fake": func(arg string) (env.Agent, error) {
		gotModel = arg
		return model, nil
	}}}
	base := newToy(t, toyVerifier(setToFive), map[string]env.Agent{"solver": solveToy})
	e, err := env.WithAgents(base, map[string]string{
		"again":  "solver",
		"model":  "fake:big-1",
		"shell":  "exec:true",
		"module": "module:relative/agent.mjs",
		"loop":   "loop",
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(e.RegressionAgents(), " "); got != "again loop model module shell solver" {
		t.Errorf("regression agents %s", got)
	}
	if got := strings.Join(env.AgentNames(e), " "); got != "again loop model module shell solver" {
		t.Errorf("agent names %s", got)
	}
	if a, err := r.Resolve(e, "again"); err != nil || a == nil {
		t.Errorf("again: %v", err)
	}
	if a, err := r.Resolve(e, "model"); err != nil {
		t.Errorf("model: %v", err)
	} else if out, _ := a.Run(context.Background(), env.AgentInput{}); out != "from the model" || gotModel != "big-1" {
		t.Errorf("model: %v, scheme given %q", out, gotModel)
	}
	if a, err := r.Resolve(e, "shell"); err != nil || a == nil {
		t.Errorf("shell: %v", err)
	}
	// a module path relative to the environment's folder in the project
	r.Project = t.TempDir()
	_, err = r.Resolve(e, "module")
	var ee *env.Error
	if !errors.As(err, &ee) || ee.Code != env.CodeAgentNotFound || !strings.Contains(err.Error(), r.Project+"/.silo/environments/toy/relative/agent.mjs: no file") {
		t.Errorf("module: %v", err)
	}
	if _, err := r.Resolve(e, "loop"); err == nil || !strings.Contains(err.Error(), "no agent loop in toy") {
		t.Errorf("loop: %v", err)
	}
	if _, err := env.WithAgents(base, map[string]string{"solver": "exec:true"}); err == nil {
		t.Error("a declared name the environment has as a Go agent was taken")
	}
}
