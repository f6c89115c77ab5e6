//go:build unix

package main

import (
	"bufio"
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agent-oracle/oracle/internal/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServeStdio drives `oracle serve` as an MCP client launching it as a
// subprocess, one process per session.
func TestServeStdio(t *testing.T) {
	dir := t.TempDir()
	connect := func(t *testing.T) *mcp.ClientSession {
		t.Helper()
		cmd := oracleCmd(dir, "serve", "--env", mcptest.Env, "--task", mcptest.Task)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "go-test", Version: "1"}, nil).
			Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	mcptest.Scenario(t, connect, filepath.Join(dir, ".silo", "runs"), nil)
}

// TestServeHTTP drives one `oracle serve --http` process over Streamable
// HTTP, a session per connection.
func TestServeHTTP(t *testing.T) {
	dir := t.TempDir()
	cmd := oracleCmd(dir, "serve", "--env", mcptest.Env, "--task", mcptest.Task, "--http", "0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := bufio.NewScanner(stderr)
	url := ""
	for url == "" && lines.Scan() {
		if _, after, ok := strings.Cut(lines.Text(), " at http://127.0.0.1:"); ok {
			url = "http://127.0.0.1:" + after
		}
	}
	if url == "" {
		t.Fatalf("serve printed no URL on 127.0.0.1")
	}
	go func() {
		for lines.Scan() {
		}
	}()
	connect := func(t *testing.T) *mcp.ClientSession {
		t.Helper()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "go-test", Version: "1"}, nil).
			Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	// stopping the server ends the rollouts in progress and writes them
	settle := func() {
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			t.Errorf("serve after SIGTERM: %v", err)
		}
	}
	mcptest.Scenario(t, connect, filepath.Join(dir, ".silo", "runs"), settle)
}
