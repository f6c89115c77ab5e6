//go:build unix

package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServeHost serves a task of an environment of the Python host over
// MCP: the host's tools are the session's, and submit_answer grades the
// rollout into .silo/runs without telling the agent.
func TestServeHost(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	dir := t.TempDir()
	if err := copyDir(filepath.Join("..", "..", "fixtures", "py", "tickets"), filepath.Join(dir, ".silo", "environments", "tickets")); err != nil {
		t.Fatal(err)
	}
	cs := serveClient(t, &mcp.CommandTransport{Command: oracleCmd(dir, "serve", "--env", "tickets", "--task", "TASK-001")})
	defer cs.Close()
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	if got := strings.Join(names, " "); got != "assign_ticket list_staff list_tickets submit_answer" {
		t.Errorf("tools %s", got)
	}
	call := func(name, args string) (bool, string) {
		t.Helper()
		r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var out []string
		for _, c := range r.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				out = append(out, tc.Text)
			}
		}
		return r.IsError, strings.Join(out, "\n")
	}
	if isErr, out := call("assign_ticket", `{"ticketId":"TCK-101","agentId":"AGT-002"}`); !isErr || !strings.Contains(out, "not_allowed") {
		t.Errorf("an assignment the tool refuses: %v %s", isErr, out)
	}
	if isErr, out := call("assign_ticket", `{"ticketId":"TCK-101","agentId":"AGT-001"}`); isErr {
		t.Fatalf("assign_ticket: %s", out)
	}
	if isErr, out := call("submit_answer", `{"answer":"Assigned TCK-101 to Ingrid Dahl."}`); isErr || strings.Contains(out, "pass") {
		t.Fatalf("submit_answer: %v %s", isErr, out)
	}
	results, _ := filepath.Glob(filepath.Join(dir, ".silo", "runs", "*", "result.json"))
	if len(results) != 1 {
		t.Fatalf("%d run folders, want 1", len(results))
	}
	data, err := os.ReadFile(results[0])
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Verdict    string
		ToolErrors int
	}
	if err := json.Unmarshal(data, &r); err != nil || r.Verdict != "pass" || r.ToolErrors != 1 {
		t.Errorf("result.json: %v %s", err, data)
	}
}
