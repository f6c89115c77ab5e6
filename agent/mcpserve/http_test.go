package mcpserve_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-oracle/oracle/agent/mcpserve"
	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/fixtures/crm"
	"github.com/agent-oracle/oracle/internal/mcptest"
	"github.com/agent-oracle/oracle/runner"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestOriginAllowed(t *testing.T) {
	t.Parallel()
	allowed := []string{"https://app.example.com", "http://ci.example.org:8443/"}
	for _, tc := range []struct {
		origin string
		want   bool
	}{
		{"", true}, // not a browser
		{"http://localhost:3000", true}, {"https://127.0.0.1", true}, {"http://[::1]:8080", true}, {"http://127.1.2.3:9", true},
		{"https://app.example.com", true}, {"HTTPS://APP.EXAMPLE.COM", true}, {"http://ci.example.org:8443", true},
		{"https://evil.example", false}, {"http://app.example.com", false}, {"https://app.example.com:444", false},
		{"http://localhost.evil.example", false}, {"null", false}, {"file://", false}, {"chrome-extension://abc", false},
		{"http://localhost:3000/path", false}, {"http://user@localhost", false}, {"not an origin", false},
	} {
		if got := mcpserve.OriginAllowed(tc.origin, allowed); got != tc.want {
			t.Errorf("OriginAllowed(%q) = %v, want %v", tc.origin, got, tc.want)
		}
	}
	if mcpserve.OriginAllowed("https://evil.example", nil) || !mcpserve.OriginAllowed("https://evil.example", []string{"*"}) {
		t.Error("* is not any origin, or nothing allowed lets another in")
	}
}

// httpServer serves crm TASK-004 over Streamable HTTP with cfg's limits and
// sends each finished rollout on the returned channel.
func httpServer(t *testing.T, cfg mcpserve.Config) (*httptest.Server, <-chan string) {
	t.Helper()
	e, err := crm.New()
	if err != nil {
		t.Fatal(err)
	}
	task, err := env.FindTask(e, mcptest.Task)
	if err != nil {
		t.Fatal(err)
	}
	ended := make(chan string, 16)
	cfg.Env, cfg.Tasks, cfg.RunsDir = e, []env.Task{task}, filepath.Join(t.TempDir(), "runs")
	cfg.Report = func(o *runner.Outcome, dir string, err error) {
		if err != nil {
			t.Errorf("rollout: %v", err)
			ended <- ""
			return
		}
		ended <- o.Result.TerminationReason + " " + dir
	}
	srv, err := mcpserve.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() { hs.Close(); srv.Close() })
	return hs, ended
}

// open connects a client named name to hs and makes one read-only tool
// call, so that its rollout has surely started: the initialized
// notification that starts it otherwise races the client's next request.
func open(t *testing.T, hs *httptest.Server, name string) (*mcp.ClientSession, error) {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: name, Version: "2"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: hs.URL + "/mcp"}, nil)
	if err != nil {
		return nil, err
	}
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_lead", Arguments: map[string]any{"leadId": "LEAD-007"}}); err != nil {
		cs.Close()
		return nil, err
	}
	return cs, nil
}

func post(t *testing.T, url, origin, body string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// TestHTTPOriginChecked: every request with an Origin that is not allowed
// is refused with 403 and a JSON-RPC error without id, before it reaches a
// session; loopback pages, allowed origins and clients without Origin are
// served.
func TestHTTPOriginChecked(t *testing.T) {
	t.Parallel()
	hs, _ := httpServer(t, mcpserve.Config{AllowOrigins: []string{"https://app.example.com"}})
	for _, origin := range []string{"https://evil.example", "null", "http://localhost.evil.example"} {
		resp, body := post(t, hs.URL+"/mcp", origin, initialize)
		var msg struct {
			ID    *json.RawMessage         `json:"id"`
			Error struct{ Message string } `json:"error"`
		}
		if resp.StatusCode != http.StatusForbidden || json.Unmarshal([]byte(body), &msg) != nil || msg.ID != nil || !strings.Contains(msg.Error.Message, "Origin") {
			t.Errorf("Origin %q: %d %s; want 403 with a JSON-RPC error", origin, resp.StatusCode, body)
		}
		if resp.Header.Get("Mcp-Session-Id") != "" {
			t.Errorf("Origin %q opened a session", origin)
		}
	}
	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		req, _ := http.NewRequest(method, hs.URL+"/mcp", nil)
		req.Header.Set("Origin", "https://evil.example")
		req.Header.Set("Mcp-Session-Id", "anything")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s with a foreign Origin: %d, want 403", method, resp.StatusCode)
		}
	}
	for _, origin := range []string{"", "http://localhost:5173", "https://app.example.com"} {
		if resp, body := post(t, hs.URL+"/mcp", origin, initialize); resp.StatusCode != http.StatusOK || resp.Header.Get("Mcp-Session-Id") == "" {
			t.Errorf("Origin %q: %d %s; want a session", origin, resp.StatusCode, body)
		}
	}
}

// TestHTTPSessionsCapped: a session past the limit is refused with 503,
// and is welcome again once one ends.
func TestHTTPSessionsCapped(t *testing.T) {
	t.Parallel()
	hs, ended := httpServer(t, mcpserve.Config{MaxSessions: 2})
	var sessions []*mcp.ClientSession
	for range 2 {
		cs, err := open(t, hs, "go-test")
		if err != nil {
			t.Fatal(err)
		}
		sessions = append(sessions, cs)
	}
	resp, body := post(t, hs.URL+"/mcp", "", initialize)
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "--max-sessions 2") {
		t.Errorf("a third session: %d %s; want 503 naming the limit", resp.StatusCode, body)
	}
	// many at once: none gets past the limit
	var wg sync.WaitGroup
	var mu sync.Mutex
	opened := 0
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if resp, _ := post(t, hs.URL+"/mcp", "", initialize); resp.StatusCode == http.StatusOK {
				mu.Lock()
				opened++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if opened != 0 {
		t.Errorf("%d sessions opened past the limit", opened)
	}
	sessions[0].Close()
	if got := <-ended; !strings.HasPrefix(got, runner.AgentError+" ") {
		t.Errorf("the closed session's rollout: %q, want agent_error with its run folder", got)
	}
	cs, err := open(t, hs, "go-test")
	if err != nil {
		t.Fatalf("a session after one ended: %v", err)
	}
	cs.Close()
	sessions[1].Close()
}

// TestHTTPIdleSessionExpires: a session that sends nothing for the idle
// timeout is closed, its rollout ends as agent_error with its run folder
// written, and its id is no longer served.
func TestHTTPIdleSessionExpires(t *testing.T) {
	t.Parallel()
	hs, ended := httpServer(t, mcpserve.Config{IdleTimeout: 300 * time.Millisecond})
	cs, err := open(t, hs, "go-test")
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	select {
	case got := <-ended:
		reason, dir, _ := strings.Cut(got, " ")
		if reason != runner.AgentError || dir == "" {
			t.Fatalf("the idle session's rollout: %q, want agent_error with its run folder", got)
		}
		if _, err := os.Stat(filepath.Join(dir, runner.ResultFile)); err != nil {
			t.Errorf("its run folder: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the idle session's rollout did not end")
	}
	if _, err := cs.ListTools(context.Background(), nil); err == nil {
		t.Error("the expired session still answers")
	}
}

// TestHTTPSessionsLogged: each session is told to Config.Sessions as it
// starts, with the client's name, and as it ends, whether by a DELETE or
// by going idle, with its unfinished rollout said.
func TestHTTPSessionsLogged(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var events []mcpserve.SessionEvent
	hs, ended := httpServer(t, mcpserve.Config{IdleTimeout: 300 * time.Millisecond, Sessions: func(ev mcpserve.SessionEvent) {
		mu.Lock()
		defer mu.Unlock()
		events = append(events, ev)
	}})
	connect := func(name string) *mcp.ClientSession {
		cs, err := open(t, hs, name)
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	deleted := connect("deletes")
	deleted.Close() // a DELETE
	<-ended
	idle := connect("goes-idle")
	defer idle.Close()
	<-ended // the idle timeout ended it
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		n := len(events)
		mu.Unlock()
		if n >= 4 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(events) != 4 {
		t.Fatalf("%d session events, want 4: %+v", len(events), events)
	}
	for i, want := range []struct {
		client string
		ended  bool
	}{{"deletes 2", false}, {"deletes 2", true}, {"goes-idle 2", false}, {"goes-idle 2", true}} {
		ev := events[i]
		if ev.Client != want.client || ev.Ended != want.ended || ev.ID == "" {
			t.Errorf("event %d: %+v, want client %q ended %v with an id", i, ev, want.client, want.ended)
		}
		if ev.Ended && (ev.Rollouts != 1 || !ev.Unfinished) {
			t.Errorf("event %d: %+v, want one unfinished rollout", i, ev)
		}
	}
	if events[0].ID != events[1].ID || events[0].ID == events[2].ID {
		t.Errorf("session ids do not pair the events: %+v", events)
	}
}
