package anthropic_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agent-oracle/oracle/agent/anthropic"
	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/fixtures/crm"
	"github.com/agent-oracle/oracle/runner"
	"github.com/google/go-cmp/cmp"
)

const key = "sk-ant-test-secret"

// TestToolUseLoop scripts a Claude model through crm TASK-008 against a
// fake Messages API: a 529 then success, a tool_use with an input that
// fails the schema, a write, a final text answer.
func TestToolUseLoop(t *testing.T) {
	answers := []struct {
		status int
		body   string
	}{
		{529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`},
		{200, `{"type":"message","role":"assistant","stop_reason":"tool_use","content":[{"type":"text","text":"Looking."},` +
			`{"type":"tool_use","id":"tu_a","name":"get_lead","input":{"leadId":7}},` +
			`{"type":"tool_use","id":"tu_b","name":"update_lead","input":{"actorUserId":"USR-002","leadId":"LEAD-007","status":"disqualified","disqualifyReason":"Student research project, no buying intent"}}]}`},
		{200, `{"type":"message","role":"assistant","stop_reason":"end_turn","content":[{"type":"text","text":"Disqualified Rosalind Achebe's lead (LEAD-007)."}]}`},
	}
	var requests []map[string]any
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/messages" || r.Header.Get("X-Api-Key") != key || r.Header.Get("Anthropic-Version") != anthropic.Version {
			t.Errorf("request %s with key %q, version %q", r.URL.Path, r.Header.Get("X-Api-Key"), r.Header.Get("Anthropic-Version"))
		}
		body, _ := io.ReadAll(r.Body)
		var req map[string]any
		if err := json.Unmarshal(body, &req); err != nil {
			t.Errorf("request: %v", err)
		}
		requests = append(requests, req)
		a := answers[0]
		answers = answers[1:]
		w.WriteHeader(a.status)
		io.WriteString(w, a.body)
	}))
	defer api.Close()
	var waits []time.Duration
	cfg := anthropic.Config{Model: "claude-test", BaseURL: api.URL, APIKey: key}
	cfg.API.Sleep = func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
	agent, err := anthropic.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e, err := crm.New()
	if err != nil {
		t.Fatal(err)
	}
	task, _ := env.FindTask(e, "TASK-008")
	o, err := runner.Run(context.Background(), e, task, agent, runner.Config{Agent: "anthropic:claude-test"})
	if err != nil {
		t.Fatal(err)
	}
	r := o.Result
	if r.Verdict != env.Pass || r.ToolCalls != 2 || r.ToolErrors != 1 || string(r.AgentOutput) != `"Disqualified Rosalind Achebe's lead (LEAD-007)."` {
		t.Errorf("%s, %d calls, %d errors, output %s", r.Verdict, r.ToolCalls, r.ToolErrors, r.AgentOutput)
	}
	if diff := cmp.Diff([]time.Duration{time.Second}, waits); diff != "" {
		t.Errorf("waits (-want +got): %s", diff)
	}
	if len(requests) != 3 {
		t.Fatalf("%d requests, want 3", len(requests))
	}
	tools := requests[0]["tools"].([]any)
	if first := tools[0].(map[string]any); first["name"] != "get_clock" || first["input_schema"] == nil {
		t.Errorf("tools[0] = %v, want get_clock with its input_schema", first)
	}
	// the tool results pair with the tool uses, in order, in one user message
	msgs := requests[2]["messages"].([]any)
	last := msgs[len(msgs)-1].(map[string]any)
	var pairs []string
	for _, b := range last["content"].([]any) {
		bm := b.(map[string]any)
		isErr, _ := bm["is_error"].(bool)
		pairs = append(pairs, bm["type"].(string)+" "+bm["tool_use_id"].(string)+" "+map[bool]string{true: "error", false: "ok"}[isErr])
	}
	if diff := cmp.Diff([]string{"tool_result tu_a error", "tool_result tu_b ok"}, pairs); diff != "" || last["role"] != "user" {
		t.Errorf("last message %v (-want +got): %s", last["role"], diff)
	}
	for name, data := range o.Artifacts.Files() {
		if strings.Contains(string(data), key) {
			t.Errorf("%s holds the API key", name)
		}
	}
	// each message is logged once: the second and third requests repeat
	// the conversation, their events hold only what is new
	var logged []string
	for _, line := range strings.Split(string(o.Artifacts.Trace), "\n") {
		if strings.Contains(line, `"type":"model_request"`) && strings.Contains(line, `"body"`) {
			logged = append(logged, line)
		}
	}
	all := strings.Join(logged, "\n")
	if n := strings.Count(all, "Looking."); n != 1 || strings.Count(all, `"input_schema"`) != 28 {
		t.Errorf("the requests' events hold the assistant's text %d times and %d tools, want 1 and 28:\n%s", n, strings.Count(all, `"input_schema"`), all)
	}
}
