// Package mcptest is the conversation every test of `oracle serve` holds with
// the server, whatever the client's transport: it serves crm TASK-008 and
// checks the tools with their schemas, an invalid input rejected with a
// pointer, a tool error, an unknown tool, submit_answer, the run folder's
// verdict, and that a second session gets a fresh world.
package mcptest

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-oracle/oracle/internal/artifact"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Env and Task are what the scenario needs served.
const (
	Env  = "crm"
	Task = "TASK-008"
)

// Connect opens a new MCP session with the server under test.
type Connect func(t *testing.T) *mcp.ClientSession

// Scenario runs the conversation. runs is the folder the server writes run
// folders under; settle, when not nil, is called after a session is closed
// and returns once the server has written that session's run folder.
func Scenario(t *testing.T, connect Connect, runs string, settle func()) {
	t.Helper()
	ctx := context.Background()
	cs := connect(t)

	if got := cs.InitializeResult().Instructions; !strings.Contains(got, "Rosalind Achebe") || !strings.Contains(got, "submit_answer") {
		t.Errorf("instructions = %q, want the task's instruction and how to submit", got)
	}
	p, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: Task})
	if err != nil {
		t.Fatalf("prompts/get %s: %v", Task, err)
	}
	if len(p.Messages) != 1 || !strings.Contains(text(p.Messages[0].Content), "Pebblecreek Dental") {
		t.Errorf("prompt %s = %+v, want the instruction", Task, p.Messages)
	}

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	byName := map[string]*mcp.Tool{}
	for _, tl := range tools.Tools {
		byName[tl.Name] = tl
	}
	for _, name := range []string{"get_lead", "update_lead", "submit_answer"} {
		if byName[name] == nil {
			t.Fatalf("tools/list has no %s", name)
		}
	}
	schema, _ := json.Marshal(byName["get_lead"].InputSchema)
	if !strings.Contains(string(schema), `"leadId"`) || byName["get_lead"].Description == "" {
		t.Errorf("get_lead schema %s, description %q: want its properties and description", schema, byName["get_lead"].Description)
	}
	if a := byName["get_lead"].Annotations; a == nil || !a.ReadOnlyHint {
		t.Errorf("get_lead annotations %+v, want readOnlyHint", a)
	}
	if a := byName["update_lead"].Annotations; a != nil && a.ReadOnlyHint {
		t.Errorf("update_lead has readOnlyHint; it writes")
	}

	call := func(name, args string) (*mcp.CallToolResult, string) {
		t.Helper()
		return callTool(t, cs, name, args)
	}
	if r, out := call("get_lead", `{"leadId":7}`); !r.IsError || !strings.Contains(out, "invalid_input") || !strings.Contains(out, "/leadId") {
		t.Errorf("invalid input: isError %v, %s; want invalid_input naming /leadId", r.IsError, out)
	}
	if r, out := call("get_lead", `{"leadId":"LEAD-999"}`); !r.IsError || !strings.Contains(out, "not_found") {
		t.Errorf("tool error: isError %v, %s; want not_found", r.IsError, out)
	}
	if r, out := call("no_such_tool", `{}`); !r.IsError || !strings.Contains(out, "tool_not_found") {
		t.Errorf("unknown tool: isError %v, %s; want tool_not_found", r.IsError, out)
	}
	if r, out := call("update_lead", `{"actorUserId":"USR-002","leadId":"LEAD-007","status":"disqualified","disqualifyReason":"Student research project, no buying intent"}`); r.IsError {
		t.Fatalf("update_lead: %s", out)
	}
	r, out := call("submit_answer", `{"answer":"Disqualified Rosalind Achebe's lead (LEAD-007): Student research project, no buying intent."}`)
	if r.IsError {
		t.Fatalf("submit_answer: %s", out)
	}
	for _, leak := range []string{"pass", "reward", "verdict"} {
		if strings.Contains(strings.ToLower(out), leak) {
			t.Errorf("submit_answer reply %q tells the agent its grade (%s)", out, leak)
		}
	}
	// the folder is written before the reply: read it at once
	res := results(t, runs)
	if len(res) != 1 {
		t.Fatalf("after submit_answer, %d run folders, want 1", len(res))
	}
	want := map[string]any{"verdict": "pass", "toolCalls": 4.0, "toolErrors": 3.0, "terminationReason": "completed"}
	for k, v := range want {
		if res[0][k] != v {
			t.Errorf("result.json %s = %v, want %v", k, res[0][k], v)
		}
	}
	if r, out := call("get_lead", `{"leadId":"LEAD-007"}`); !r.IsError || !strings.Contains(out, "rollout_ended") {
		t.Errorf("call after submit_answer: isError %v, %s; want rollout_ended", r.IsError, out)
	}
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}

	// a second session starts from a fresh world
	cs2 := connect(t)
	r, out = callTool(t, cs2, "get_lead", `{"leadId":"LEAD-007"}`)
	if r.IsError || strings.Contains(out, "disqualified") {
		t.Errorf("second session's LEAD-007 = %s; want the lead as it was, not disqualified", out)
	}
	if err := cs2.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	if settle != nil {
		settle()
	}
	res = results(t, runs)
	if len(res) != 2 {
		t.Fatalf("after the second session closed, %d run folders, want 2", len(res))
	}
	reasons := []string{res[0]["terminationReason"].(string), res[1]["terminationReason"].(string)}
	slices.Sort(reasons)
	if !slices.Equal(reasons, []string{"agent_error", "completed"}) {
		t.Errorf("termination reasons %v, want the closed session's agent_error beside the first's completed", reasons)
	}
}

func callTool(t *testing.T, cs *mcp.ClientSession, name, args string) (*mcp.CallToolResult, string) {
	t.Helper()
	r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("tools/call %s %s: a JSON-RPC error, want a tool result: %v", name, args, err)
	}
	var out []string
	for _, c := range r.Content {
		out = append(out, text(c))
	}
	return r, strings.Join(out, "\n")
}

func text(c mcp.Content) string {
	if tc, ok := c.(*mcp.TextContent); ok {
		return tc.Text
	}
	return ""
}

// RunFolders names the run folders under runs: its folders, without the
// hidden ones (a run being written) and files (the folder's .gitignore).
// A runs folder that does not exist yet has none.
func RunFolders(t *testing.T, runs string) []string {
	t.Helper()
	entries, err := os.ReadDir(runs)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("run folders: %v", err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	return names
}

// results reads the result.json of every run folder under runs.
func results(t *testing.T, runs string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, name := range RunFolders(t, runs) {
		b, err := os.ReadFile(filepath.Join(runs, name, artifact.Result))
		if err != nil {
			t.Fatalf("run folder %s: %v", name, err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s/result.json: %v", name, err)
		}
		out = append(out, m)
	}
	return out
}
