package mcpserve_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/fixtures/crm"
	"github.com/agent-oracle/oracle/internal/mcptest"
	"github.com/agent-oracle/oracle/mcpserve"
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
