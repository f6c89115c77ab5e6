package mcpserve_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-oracle/oracle/agent/mcpserve"
	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/fixtures/crm"
	"github.com/agent-oracle/oracle/internal/mcptest"
	"github.com/agent-oracle/oracle/runner"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func newServer(t *testing.T, runs string, ids ...string) *mcpserve.Server {
	t.Helper()
	e, err := crm.New()
	if err != nil {
		t.Fatal(err)
	}
	var tasks []env.Task
	for _, id := range ids {
		task, err := env.FindTask(e, id)
		if err != nil {
			t.Fatal(err)
		}
		tasks = append(tasks, task)
	}
	srv, err := mcpserve.New(mcpserve.Config{Env: e, Tasks: tasks, RunsDir: runs,
		Report: func(o *runner.Outcome, dir string, err error) {
			if err != nil {
				t.Errorf("rollout: %v", err)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// connect opens an in-memory session with srv.
func connect(srv *mcpserve.Server) mcptest.Connect {
	return func(t *testing.T) *mcp.ClientSession {
		t.Helper()
		ct, st := mcp.NewInMemoryTransports()
		if _, err := srv.MCP().Connect(context.Background(), st, nil); err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "go-test", Version: "1"}, nil).Connect(context.Background(), ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
}

func TestServeInMemory(t *testing.T) {
	runs := filepath.Join(t.TempDir(), "runs")
	srv := newServer(t, runs, mcptest.Task)
	mcptest.Scenario(t, connect(srv), runs, srv.Close)
}

func call(t *testing.T, cs *mcp.ClientSession, name, args string) (bool, string) {
	t.Helper()
	r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("tools/call %s: a JSON-RPC error, want a tool result: %v", name, err)
	}
	var out []string
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			out = append(out, tc.Text)
		}
	}
	return r.IsError, strings.Join(out, "\n")
}

// TestServeSeveralTasks serves two tasks: nothing runs before start_task,
// one task at a time, each in a fresh world, one run folder each.
func TestServeSeveralTasks(t *testing.T) {
	runs := filepath.Join(t.TempDir(), "runs")
	srv := newServer(t, runs, "TASK-004", "TASK-008")
	cs := connect(srv)(t)
	if got := cs.InitializeResult().Instructions; !strings.Contains(got, "TASK-004, TASK-008") || !strings.Contains(got, "start_task") {
		t.Errorf("instructions %q, want the tasks and start_task", got)
	}
	steps := []struct{ tool, args, want string }{
		{"get_lead", `{"leadId":"LEAD-007"}`, "isError no_task"},
		{"start_task", `{"task":"TASK-999"}`, "isError /task"},
		{"start_task", `{"task":"TASK-008"}`, "Rosalind Achebe"},
		{"start_task", `{"task":"TASK-004"}`, "isError task_in_progress"},
		{"update_lead", `{"actorUserId":"USR-002","leadId":"LEAD-007","status":"disqualified","disqualifyReason":"Student research project, no buying intent"}`, `"status":"disqualified"`},
		{"submit_answer", `{"answer":"done"}`, "call start_task to start another"},
		{"submit_answer", `{"answer":"again"}`, "isError already_submitted"},
		{"start_task", `{"task":"TASK-008"}`, "Rosalind Achebe"},
		{"get_lead", `{"leadId":"LEAD-007"}`, `"status":"working"`},
		{"submit_answer", `{}`, "isError /answer"},
		{"submit_answer", `{"answer":{"any":"JSON"}}`, "Answer submitted"},
	}
	for i, s := range steps {
		isErr, out := call(t, cs, s.tool, s.args)
		if isErr {
			out = "isError " + out
		}
		want := s.want
		if strings.HasPrefix(want, "isError ") {
			if !isErr || !strings.Contains(out, strings.TrimPrefix(want, "isError ")) {
				t.Errorf("step %d %s %s = %s, want an error with %s", i, s.tool, s.args, out, want)
			}
		} else if isErr || !strings.Contains(out, want) {
			t.Errorf("step %d %s %s = %s, want %s", i, s.tool, s.args, out, want)
		}
	}
	if got := mcptest.RunFolders(t, runs); len(got) != 2 {
		t.Errorf("run folders %v, want one per started task", got)
	}
	cs.Close()
	srv.Close()
}

// TestServeBudget ends the rollout when the tool-call budget runs out: the
// call past it is refused, the run folder is written with max_tool_calls,
// and submit_answer is told its answer was not taken.
func TestServeBudget(t *testing.T) {
	runs := filepath.Join(t.TempDir(), "runs")
	e, err := crm.New()
	if err != nil {
		t.Fatal(err)
	}
	task, _ := env.FindTask(e, "TASK-008")
	reported := make(chan *runner.Outcome, 1)
	srv, err := mcpserve.New(mcpserve.Config{Env: e, Tasks: []env.Task{task}, RunsDir: runs, Run: runner.Config{MaxToolCalls: 1},
		Report: func(o *runner.Outcome, dir string, err error) {
			if err != nil {
				t.Errorf("rollout: %v", err)
			}
			reported <- o
		}})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(srv)(t)
	if isErr, out := call(t, cs, "get_clock", `{}`); isErr {
		t.Fatalf("get_clock: %s", out)
	}
	if isErr, out := call(t, cs, "get_clock", `{}`); !isErr || !strings.Contains(out, "max_tool_calls") {
		t.Errorf("call past the budget = %s, want a max_tool_calls error", out)
	}
	o := <-reported
	if o.Result.TerminationReason != "max_tool_calls" {
		t.Errorf("termination %s, want max_tool_calls", o.Result.TerminationReason)
	}
	if isErr, out := call(t, cs, "submit_answer", `{"answer":"late"}`); !isErr || !strings.Contains(out, "rollout_ended") {
		t.Errorf("submit_answer after the budget = %s, want rollout_ended", out)
	}
	cs.Close()
	srv.Close()
}
