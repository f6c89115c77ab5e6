//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-oracle/oracle/command"
	"github.com/agent-oracle/oracle/internal/mcptest"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServeStdio drives `oracle serve` as an MCP client launching it as a
// subprocess, one process per session.
func TestServeStdio(t *testing.T) {
	dir := t.TempDir()
	connect := func(t *testing.T) *mcp.ClientSession {
		t.Helper()
		return serveClient(t, &mcp.CommandTransport{Command: oracleCmd(dir, "serve", "--env", mcptest.Env, "--task", mcptest.Task)})
	}
	mcptest.Scenario(t, connect, filepath.Join(dir, ".silo", "runs"), nil)

	// a served rollout becomes a CI case: record its trace as a replay
	traces, _ := filepath.Glob(filepath.Join(dir, ".silo", "runs", "*", "trace.jsonl"))
	recorded := 0
	for _, trace := range traces {
		var stdout, stderr bytes.Buffer
		code := command.Run(context.Background(), []string{"oracle", "-C", dir, "record", "--agent", "replay:" + trace},
			testEnvironments, &stdout, &stderr)
		if code != 0 {
			t.Fatalf("record --agent replay:%s: exit %d: %s", trace, code, stderr.String())
		}
		if strings.Contains(stdout.String(), "TASK-008 (pass)") {
			recorded++
		}
	}
	if recorded != 1 {
		t.Errorf("%d served runs recorded as passing replay cases, want the submitted one", recorded)
	}
	var stdout, stderr bytes.Buffer
	if code := command.Run(context.Background(), []string{"oracle", "-C", dir, "check", "--agent", "replay-*"},
		testEnvironments, &stdout, &stderr); code != 0 {
		t.Errorf("check of the replay cases: exit %d: %s%s", code, stdout.String(), stderr.String())
	}
}

// TestServeHTTP drives one `oracle serve --http` process over Streamable
// HTTP, a session per connection, with the token it printed; a request
// without it, or with another, is refused.
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
	url, token := "", ""
	for token == "" && lines.Scan() {
		if _, after, ok := strings.Cut(lines.Text(), " at http://127.0.0.1:"); ok {
			url = "http://127.0.0.1:" + after
		}
		if after, ok := strings.CutPrefix(lines.Text(), "token: "); ok {
			token, _, _ = strings.Cut(after, " ")
		}
	}
	if url == "" || len(token) != 64 {
		t.Fatalf("serve printed no URL on 127.0.0.1 (%q) or no token (%q)", url, token)
	}
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for _, auth := range []string{"", "Bearer " + strings.Repeat("0", 64), token, "Bearer " + token + "x"} {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(init))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("a request with Authorization %q: %s, want 401", auth, resp.Status)
		}
	}
	var logged []string
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		for lines.Scan() {
			logged = append(logged, lines.Text())
		}
	}()
	connect := func(t *testing.T) *mcp.ClientSession {
		t.Helper()
		return serveClient(t, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer(token)}})
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
	<-drained
	// each session's start and end is logged, by its id
	started, ended := map[string]bool{}, map[string]bool{}
	for _, l := range logged {
		if id, ok := strings.CutSuffix(l, ` started: client "go-test 1"`); ok {
			started[strings.TrimPrefix(id, "session ")] = true
		}
		if rest, ok := strings.CutPrefix(l, "session "); ok {
			if id, _, ok := strings.Cut(rest, " ended ("); ok {
				ended[id] = true
			}
		}
	}
	if len(started) == 0 || len(started) != len(ended) {
		t.Errorf("sessions logged: %d started, %d ended; want each that started to end:\n%s", len(started), len(ended), strings.Join(logged, "\n"))
	}
	for id := range started {
		if !ended[id] {
			t.Errorf("session %s started and never ended in the log", id)
		}
	}
}

// TestListToolsMCPIsWhatServeLists compares `list --tools --format mcp`
// with the tools/list result of `oracle serve`: the same tools, field for
// field, save the server's own submit_answer.
func TestListToolsMCPIsWhatServeLists(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	if code := command.Run(context.Background(), []string{"oracle", "-C", dir, "list", "--tools", "--env", "crm", "--format", "mcp"},
		testEnvironments, &stdout, &stderr); code != 0 {
		t.Fatalf("list --tools: exit %d: %s", code, stderr.String())
	}
	var listed []map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &listed); err != nil {
		t.Fatal(err)
	}
	cs := serveClient(t, &mcp.CommandTransport{Command: oracleCmd(dir, "serve", "--env", "crm", "--task", "TASK-001")})
	defer cs.Close()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var served []map[string]any
	for _, tl := range res.Tools {
		if tl.Name == "submit_answer" {
			continue
		}
		b, _ := json.Marshal(tl)
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		served = append(served, m)
	}
	// tools/list orders tools by name; the list keeps definition order
	byName := func(a, b map[string]any) bool { return a["name"].(string) < b["name"].(string) }
	if diff := cmp.Diff(served, listed, cmpopts.SortSlices(byName)); diff != "" {
		t.Errorf("list --tools --format mcp differs from serve's tools/list (-served +listed):\n%s", diff)
	}
}

// TestServeTypeScriptClient drives `oracle serve` with the official
// TypeScript MCP client, found in the node_modules folder that
// ORACLE_MCP_NODE_MODULES names (npm install @modelcontextprotocol/sdk).
func TestServeTypeScriptClient(t *testing.T) {
	modules := os.Getenv("ORACLE_MCP_NODE_MODULES")
	if modules == "" {
		t.Skip("ORACLE_MCP_NODE_MODULES is not set: npm install @modelcontextprotocol/sdk into a folder and name its node_modules")
	}
	if _, err := os.Stat(filepath.Join(modules, "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Skipf("ORACLE_MCP_NODE_MODULES=%s has no @modelcontextprotocol/sdk: %v", modules, err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	dir := t.TempDir()
	runs := filepath.Join(dir, ".silo", "runs")
	if err := os.MkdirAll(runs, 0o755); err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs(filepath.Join("testdata", "mcpclient", "client.cjs"))
	if err != nil {
		t.Fatal(err)
	}
	serve := oracleCmd(dir, "serve", "--env", mcptest.Env, "--task", mcptest.Task)
	cmd := exec.Command(node, append([]string{script, modules, runs}, serve.Args...)...)
	cmd.Env = serve.Env
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.HasSuffix(strings.TrimSpace(string(out)), "ok") {
		t.Fatalf("TypeScript client: %v\n%s", err, out)
	}
	// the second session's folder is written as its server exits
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		got := mcptest.RunFolders(t, runs)
		if len(got) == 2 || time.Now().After(deadline) {
			if len(got) != 2 {
				t.Errorf("run folders %v after two sessions, want 2", got)
			}
			break
		}
	}
}

// serveClient connects an MCP client session to oracle serve through
// transport.
func serveClient(t *testing.T, transport mcp.Transport) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "go-test", Version: "1"}, nil).Connect(context.Background(), transport, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// bearer is a transport that sends the token of oracle serve --http.
type bearer string

func (b bearer) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(req)
}
