package mcpserve

import (
	"encoding/json"
	"fmt"

	"github.com/agent-oracle/oracle/env"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Names of the tools the server adds to an environment's.
const (
	SubmitTool = "submit_answer"
	StartTool  = "start_task"
)

// Tools returns an environment's tools as an MCP tools/list result lists
// them: name, description, input schema and annotations (readOnlyHint for a
// tool that never changes the state). An input schema that is not a JSON
// object of type "object" is an error: MCP requires one.
func Tools(specs []env.ToolSpec) ([]*mcp.Tool, error) {
	out := make([]*mcp.Tool, 0, len(specs))
	for _, s := range specs {
		var schema map[string]any
		if err := json.Unmarshal(s.InputSchema, &schema); err != nil || schema["type"] != "object" {
			return nil, fmt.Errorf("tool %s: MCP needs an input schema of type \"object\"", s.Name)
		}
		if s.Name == SubmitTool || s.Name == StartTool {
			return nil, fmt.Errorf("tool %s: the name is the server's own; rename the tool", s.Name)
		}
		out = append(out, &mcp.Tool{
			Name:        s.Name,
			Description: s.Description,
			InputSchema: json.RawMessage(s.InputSchema),
			Annotations: annotations(s.ReadOnly),
		})
	}
	return out, nil
}

func annotations(readOnly bool) *mcp.ToolAnnotations {
	closed := false // a tool works on the rollout's world only
	return &mcp.ToolAnnotations{ReadOnlyHint: readOnly, OpenWorldHint: &closed}
}

func submitTool() *mcp.Tool {
	closed := false
	return &mcp.Tool{
		Name: SubmitTool,
		Description: "Submit your final answer and end the task. Call it once, when you are done: " +
			"no tool call is accepted afterwards. The answer is any JSON value, usually a string.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"answer":{"description":"your final answer, usually a string"}},"required":["answer"],"additionalProperties":false}`),
		Annotations: &mcp.ToolAnnotations{OpenWorldHint: &closed},
	}
}

func startTool(ids []string) *mcp.Tool {
	closed := false
	enum, _ := json.Marshal(ids)
	return &mcp.Tool{
		Name: StartTool,
		Description: "Start one of the served tasks in a fresh world and return its instruction. " +
			"Finish it with submit_answer before starting another.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"task":{"type":"string","description":"the task id","enum":` +
			string(enum) + `}},"required":["task"],"additionalProperties":false}`),
		Annotations: &mcp.ToolAnnotations{OpenWorldHint: &closed},
	}
}
