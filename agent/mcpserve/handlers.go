package mcpserve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/internal/canon"
	"github.com/agent-oracle/oracle/runner"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// unknownTools routes a call of a tool the server does not have to the
// runner, which answers it with a tool_not_found tool error that counts as
// a call, as it does for every agent; the SDK would answer a JSON-RPC error.
func (s *Server) unknownTools(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "tools/call" {
			if r, ok := req.(*mcp.CallToolRequest); ok && r.Params != nil && !s.known(r.Params.Name) {
				return s.callTool(ctx, r)
			}
		}
		return next(ctx, method, req)
	}
}

func (s *Server) known(name string) bool {
	return s.tools[name] || name == SubmitTool || (name == StartTool && s.multi())
}

// callTool runs an environment tool through the rollout's runner.
func (s *Server) callTool(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	r := s.active(req.Session)
	if r == nil {
		return s.noTask(), nil
	}
	select {
	case <-r.ready:
	case <-r.done:
		return errorResult(env.Errorf("rollout_ended", "the task has ended; no more tool calls are accepted")), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	args := json.RawMessage(bytes.TrimSpace(req.Params.Arguments))
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage(`{}`)
	}
	res := r.in.Call(ctx, req.Params.Name, args)
	out := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(res.Output)}}, IsError: res.IsError}
	if !res.IsError && bytes.HasPrefix(bytes.TrimSpace(res.Output), []byte("{")) {
		out.StructuredContent = res.Output
	}
	return out, nil
}

// submit takes the final answer, ends the rollout and replies once the run
// folder is written. The reply says nothing of the grade.
func (s *Server) submit(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in struct {
		Answer json.RawMessage `json:"answer"`
	}
	dec := json.NewDecoder(bytes.NewReader(req.Params.Arguments))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil || in.Answer == nil {
		return errorResult(&env.ToolError{Code: "invalid_input",
			Message: `Invalid arguments for "submit_answer": /answer: required; give {"answer": …}, any JSON value, usually a string.`,
			Details: map[string]any{"problems": []runner.Problem{{Pointer: "/answer", Message: "required"}}}}), nil
	}
	r := s.active(req.Session)
	if r == nil {
		return s.noTask(), nil
	}
	select {
	case <-r.ready:
	case <-r.done:
	}
	if !r.submitted.CompareAndSwap(false, true) {
		return errorResult(env.Errorf("already_submitted", "an answer was already submitted; the task has ended")), nil
	}
	r.answer <- in.Answer // buffered: never blocks, whether the agent still waits or not
	select {
	case <-r.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if r.reason != "completed" {
		return errorResult(env.Errorf("rollout_ended", "the task had already ended (%s) and the answer was not taken", r.reason)), nil
	}
	text := "Answer submitted. The task has ended; no more tool calls are accepted."
	if s.multi() {
		text = "Answer submitted. The task has ended; call start_task to start another."
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
}

// start starts a served task in a fresh world and returns its instruction.
func (s *Server) start(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in struct {
		Task string `json:"task"`
	}
	dec := json.NewDecoder(bytes.NewReader(req.Params.Arguments))
	dec.DisallowUnknownFields()
	ids := s.taskIDs()
	if err := dec.Decode(&in); err != nil || !slices.Contains(ids, in.Task) {
		return errorResult(&env.ToolError{Code: "invalid_input",
			Message: fmt.Sprintf(`Invalid arguments for "start_task": /task: must be one of %s.`, strings.Join(ids, ", ")),
			Details: map[string]any{"problems": []runner.Problem{{Pointer: "/task", Message: "must be one of " + strings.Join(ids, ", ")}}}}), nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sess := s.session(req.Session)
	switch {
	case sess.gone:
		return errorResult(env.Errorf("session_closed", "the session has ended")), nil
	case sess.current != nil && !sess.current.over():
		return errorResult(env.Errorf("task_in_progress", "task %s is in progress; finish it with submit_answer first", sess.current.task.ID)), nil
	}
	i := slices.Index(ids, in.Task)
	sess.current = s.launch(s.cfg.Tasks[i], clientOf(req.Session))
	sess.rollouts++
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s.cfg.Tasks[i].Instruction}}}, nil
}

func (s *Server) noTask() *mcp.CallToolResult {
	return errorResult(env.Errorf("no_task", "no task is started; call start_task with one of: %s", strings.Join(s.taskIDs(), ", ")))
}

func errorResult(te *env.ToolError) *mcp.CallToolResult {
	b, _ := canon.Compact(te)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}, IsError: true}
}
