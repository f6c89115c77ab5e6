package runner

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agent-oracle/oracle/env"
)

// Script is a scripted rollout: tool calls made in order, whatever they
// return, then a final output. Replays of recorded traces and the candidates
// of verifier tests are scripts.
type Script struct {
	Calls []ScriptCall `json:"calls"`
	// Output is the final output; absent or null means the agent gave none.
	Output json.RawMessage `json:"output,omitempty"`
}

// ScriptCall is one call of a script.
type ScriptCall struct {
	Tool  string          `json:"tool"`
	Input json.RawMessage `json:"input,omitempty"`
}

// ScriptAgent returns an agent that plays s. A call that fails is passed on
// as the error it now is and the script goes on: the verifier and the oracle
// judge the outcome. It stops early when the runner cancels it.
func ScriptAgent(s Script) env.Agent {
	return env.Inline(env.AgentFunc(func(ctx context.Context, in env.AgentInput) (any, error) {
		for i, c := range s.Calls {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("script stopped before call %d: %w", i+1, context.Cause(ctx))
			}
			var input any
			if len(c.Input) > 0 {
				input = c.Input
			}
			in.Call(ctx, c.Tool, input)
		}
		if len(s.Output) == 0 {
			return nil, nil
		}
		return s.Output, nil
	}))
}
