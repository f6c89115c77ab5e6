//go:build !unix

package runner

import (
	"context"
	"errors"

	"github.com/agent-oracle/oracle/env"
)

// ExecAgent returns an agent that fails: exec agents need process groups,
// which this system does not have.
func ExecAgent(cfg ExecConfig) env.Agent {
	return env.AgentFunc(func(context.Context, env.AgentInput) (any, error) {
		return nil, errors.New("exec agents need a Unix system; run oracle on Linux or macOS, or use a built-in agent")
	})
}

// execAgentFor returns an agent that fails, as ExecAgent does.
func execAgentFor(cfg ExecConfig, warn func(string)) (env.Agent, error) { return ExecAgent(cfg), nil }
