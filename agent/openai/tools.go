package openai

import (
	"encoding/json"

	"github.com/agent-oracle/oracle/env"
)

// Tool is one entry of the chat completions API's tools array.
type Tool struct {
	Type     string   `json:"type"` // always "function"
	Function Function `json:"function"`
}

// Function is a tool in the API's function format.
type Function struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Tools returns an environment's tools as the chat completions API takes
// them: {"type":"function","function":{"name","description","parameters"}}
// with the tool's input schema as the parameters.
func Tools(specs []env.ToolSpec) []Tool {
	out := make([]Tool, len(specs))
	for i, s := range specs {
		params := s.InputSchema
		if len(params) == 0 {
			params = json.RawMessage(`{"type":"object"}`)
		}
		out[i] = Tool{Type: "function", Function: Function{Name: s.Name, Description: s.Description, Parameters: params}}
	}
	return out
}
