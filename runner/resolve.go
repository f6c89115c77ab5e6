package runner

import (
	"fmt"
	"strings"

	"github.com/agent-oracle/oracle/env"
)

// Resolve returns the agent a reference names: the name of a Go agent built
// into e, exec:COMMAND for an external process, or replay:PATH for a
// recorded trace.
func Resolve(e env.Environment, ref string) (env.Agent, error) {
	switch {
	case strings.HasPrefix(ref, "exec:"):
		return nil, fmt.Errorf("agent_not_found: exec agents are not supported by this build")
	case strings.HasPrefix(ref, "replay:"):
		return nil, fmt.Errorf("agent_not_found: replay agents are not supported by this build")
	}
	if a, ok := e.Agent(ref); ok {
		return a, nil
	}
	names := e.Agents()
	if len(names) == 0 {
		return nil, fmt.Errorf("agent_not_found: no agent %s in %s, which has no built-in agents; use exec:COMMAND or replay:PATH", ref, e.Name())
	}
	return nil, fmt.Errorf("agent_not_found: no agent %s in %s; built-in agents: %s, or exec:COMMAND, replay:PATH", ref, e.Name(), strings.Join(names, ", "))
}
