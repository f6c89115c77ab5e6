package env

import (
	"context"
	"encoding/json"
	"fmt"
)

// Agent rolls through one task: it reads the instruction, calls tools, and
// returns its final output (usually a string; any JSON value is allowed).
//
// The runner cancels ctx when the time or tool-call budget runs out; an agent
// should return then. One that does not is abandoned, and its later calls are
// refused.
type Agent interface {
	Run(ctx context.Context, in AgentInput) (output any, err error)
}

// AgentFunc adapts a function to Agent.
type AgentFunc func(ctx context.Context, in AgentInput) (any, error)

// Run calls f.
func (f AgentFunc) Run(ctx context.Context, in AgentInput) (any, error) { return f(ctx, in) }

// Inline marks a as an agent whose tool calls may run on the goroutine that
// makes them, for an agent that calls tools from its own goroutine only and
// holds nothing a tool that never returns would leave behind (a process, a
// connection, a client waiting for an answer). The runner then runs each of
// its calls there, without handing it to a goroutine of its own and back,
// which costs two wake-ups a call; a tool that never returns then holds
// the agent's goroutine, and the rollout's end abandons both. Without the
// mark, such a call returns a tool_abandoned error to the agent at the
// rollout's end. The reference solvers and replay agents are inline. The
// agent Inline returns has a's Run and the mark, no other method of a.
func Inline(a Agent) Agent { return inlineAgent{a} }

type inlineAgent struct{ Agent }

// InlineCalls says the agent is inline (see Inline).
func (inlineAgent) InlineCalls() {}

// AgentInput is what an agent receives.
type AgentInput struct {
	Task  string // the task's instruction, the only text of the task the agent sees
	Tools []ToolSpec
	// Call calls a tool. input is marshalled to JSON (a json.RawMessage is
	// used as it is). Errors of the tool, an invalid input, an unknown tool or
	// an exhausted budget come back as a result with IsError set.
	Call func(ctx context.Context, tool string, input any) ToolResult
	// Log appends an event of type typ to the rollout's trace.jsonl, with
	// fields after seq, type and at in sorted key order (the keys seq, type
	// and at are dropped). The runner's own event types (run_start,
	// tool_call, tool_result, agent_output, agent_panic, run_end,
	// verifier_result, trace_truncated) are reserved: such an event is recorded as
	// agent_log with the requested type in its "event" field. Events never
	// reach result.json or state-diff.json. The runner always sets Log; it
	// is nil only when an agent is called outside the runner.
	Log func(typ string, fields map[string]any)
}

// ToolResult is what a tool call returns to the agent: its output as JSON,
// or with IsError set, a ToolError as JSON.
type ToolResult struct {
	Output  json.RawMessage `json:"output"`
	IsError bool            `json:"isError"`
}

// Decode unmarshals the output into v.
func (r ToolResult) Decode(v any) error { return json.Unmarshal(r.Output, v) }

// Stop reasons: the cause of an agent's cancelled context when the runner
// stops it (read it with context.Cause).
var (
	ErrMaxToolCalls = stopReason("max_tool_calls")
	ErrTimeout      = stopReason("timeout")
)

type stopReason string

func (s stopReason) Error() string { return "stopped: " + string(s) }

// StopReason returns "max_tool_calls" or "timeout" when err is one of the
// runner's stop causes, and "" otherwise.
func StopReason(err error) string {
	if s, ok := err.(stopReason); ok {
		return string(s)
	}
	return ""
}

// CallInto calls a tool and decodes its output into out (skipped when out is
// nil). It returns ctx's error once ctx is done, and a tool's error result as
// an error, so a Go agent can write its plan as straight-line code.
func (in AgentInput) CallInto(ctx context.Context, tool string, input, out any) error {
	output, err := in.CallOutput(ctx, tool, input)
	if err != nil || out == nil {
		return err
	}
	if err := json.Unmarshal(output, out); err != nil {
		return fmt.Errorf("%s: decode output: %w", tool, err)
	}
	return nil
}

// CallOutput calls a tool (with {} for a nil input) and returns its output,
// for an agent that reads it its own way. It returns ctx's error once ctx is
// done, and a tool's error result as an error, as CallInto does.
func (in AgentInput) CallOutput(ctx context.Context, tool string, input any) (json.RawMessage, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if input == nil {
		input = map[string]any{}
	}
	r := in.Call(ctx, tool, input)
	if r.IsError {
		return nil, fmt.Errorf("%s: %s", tool, r.Output)
	}
	return r.Output, nil
}
