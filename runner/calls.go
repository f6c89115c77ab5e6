package runner

import (
	"encoding/json"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/internal/canon"
)

// Call is one entry of calls.json: a tool call as the agent saw it. Input is
// the JSON the runner validated (null when the agent's input was not JSON);
// exactly one of Output and Error is set. Error is the tool error the agent
// received (code, message and any details): for invalid input, an unknown
// tool, a tool that failed and the call refused because the budget was used
// up. Nothing in a Call varies between runs of the same behaviour: no time,
// duration or id.
type Call struct {
	Tool   string          `json:"tool"`
	Input  json.RawMessage `json:"input"`
	Output json.RawMessage `json:"output,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

// recordCall appends a call to calls.json's list. s.mu is held.
func (s *session) recordCall(tool string, input json.RawMessage, out json.RawMessage, isErr bool) {
	c := Call{Tool: tool, Input: input}
	if c.Input == nil {
		c.Input = json.RawMessage("null")
	}
	if isErr {
		c.Error = out
	} else {
		c.Output = out
		if c.Output == nil {
			c.Output = json.RawMessage("null")
		}
	}
	s.log = append(s.log, c)
}

// marshalCalls writes calls.json: the calls in the order the runner took
// them, as a JSON array.
func marshalCalls(calls []Call) ([]byte, error) {
	if calls == nil {
		calls = []Call{}
	}
	return canon.Marshal(calls)
}

// budgetError is the tool error of a call refused because the budget of
// max tool calls is used up.
func budgetError(max int) *env.ToolError {
	return env.Errorf("max_tool_calls", "the budget of %d tool calls is used up", max)
}
