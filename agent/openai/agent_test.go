package openai_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-oracle/oracle/agent/internal/modelapi"
	"github.com/agent-oracle/oracle/agent/openai"
	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/fixtures/crm"
	"github.com/agent-oracle/oracle/runner"
	"github.com/google/go-cmp/cmp"
)

const key = "sk-test-secret-key"

// turn is one scripted answer of the fake API.
type turn struct {
	status     int
	retryAfter string
	body       string
}

// fakeAPI implements POST /v1/chat/completions with scripted answers and
// keeps the requests it got.
type fakeAPI struct {
	t        *testing.T
	mu       sync.Mutex
	turns    []turn
	requests []map[string]any
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		f.t.Errorf("request %s %s, want POST /v1/chat/completions", r.Method, r.URL.Path)
	}
	if got := r.Header.Get("Authorization"); got != "Bearer "+key {
		f.t.Errorf("Authorization = %q", got)
	}
	body, _ := io.ReadAll(r.Body)
	var req map[string]any
	if err := json.Unmarshal(body, &req); err != nil {
		f.t.Errorf("request body is not JSON: %v", err)
	}
	f.requests = append(f.requests, req)
	if len(f.turns) == 0 {
		f.t.Errorf("more requests than scripted turns")
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	tn := f.turns[0]
	f.turns = f.turns[1:]
	if tn.retryAfter != "" {
		w.Header().Set("Retry-After", tn.retryAfter)
	}
	w.Header().Set("Content-Type", "application/json")
	if tn.status == 0 {
		tn.status = http.StatusOK
	}
	w.WriteHeader(tn.status)
	io.WriteString(w, tn.body)
}

// toolCalls is an assistant message calling tools: id, name, arguments
// string triples.
func toolCalls(calls ...[3]string) string {
	var tc []map[string]any
	for _, c := range calls {
		tc = append(tc, map[string]any{"id": c[0], "type": "function", "function": map[string]any{"name": c[1], "arguments": c[2]}})
	}
	b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"index": 0, "finish_reason": "tool_calls",
		"message": map[string]any{"role": "assistant", "content": nil, "tool_calls": tc}}}})
	return string(b)
}

func final(text string) string {
	b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
		"message": map[string]any{"role": "assistant", "content": text}}}})
	return string(b)
}

// rollout runs the openai agent on crm TASK-008 against the scripted API.
func rollout(t *testing.T, turns []turn, cfg openai.Config) (*runner.Outcome, *fakeAPI, []time.Duration) {
	t.Helper()
	api := &fakeAPI{t: t, turns: turns}
	srv := httptest.NewServer(api)
	defer srv.Close()
	var waits []time.Duration
	cfg.Model, cfg.BaseURL, cfg.APIKey = "test-model", srv.URL+"/v1", key
	cfg.API.Sleep = func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
	o := runTask008(t, cfg)
	for name, data := range o.Artifacts.Files() {
		if strings.Contains(string(data), key) {
			t.Errorf("%s holds the API key", name)
		}
	}
	if len(api.turns) > 0 {
		t.Errorf("%d scripted turns left unused", len(api.turns))
	}
	return o, api, waits
}

// runTask008 rolls the openai agent of cfg through crm TASK-008.
func runTask008(t *testing.T, cfg openai.Config) *runner.Outcome {
	t.Helper()
	e, task, agent := task008(t, cfg)
	o, err := runner.Run(context.Background(), e, task, agent, runner.Config{Agent: "openai:" + cfg.Model})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// task008 is crm, its TASK-008 and the openai agent of cfg.
func task008(t *testing.T, cfg openai.Config) (env.Environment, env.Task, env.Agent) {
	t.Helper()
	agent, err := openai.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e, err := crm.New()
	if err != nil {
		t.Fatal(err)
	}
	task, err := env.FindTask(e, "TASK-008")
	if err != nil {
		t.Fatal(err)
	}
	return e, task, agent
}

const disqualify = `{"actorUserId":"USR-002","leadId":"LEAD-007","status":"disqualified","disqualifyReason":"Student research project, no buying intent"}`

func TestToolLoop(t *testing.T) {
	temp := 0.0
	seed := int64(7)
	o, api, waits := rollout(t, []turn{
		{body: toolCalls([3]string{"call_a", "get_lead", `{"leadId":"LEAD-007"}`}, [3]string{"call_b", "get_lead", `{"leadId":`})},
		{body: toolCalls([3]string{"call_c", "update_lead", disqualify})},
		{body: final("Disqualified Rosalind Achebe's lead (LEAD-007): Student research project, no buying intent.")},
	}, openai.Config{Temperature: temp, Seed: &seed})
	if len(waits) != 0 {
		t.Errorf("waits %v, want none", waits)
	}
	r := o.Result
	if r.Verdict != env.Pass || r.ToolCalls != 3 || r.ToolErrors != 1 || r.TerminationReason != runner.Completed {
		t.Errorf("result %s, %d calls, %d errors, %s; want pass, 3 calls, 1 error (the malformed arguments), completed",
			r.Verdict, r.ToolCalls, r.ToolErrors, r.TerminationReason)
	}
	if len(api.requests) != 3 {
		t.Fatalf("%d requests, want 3", len(api.requests))
	}
	first := api.requests[0]
	if first["model"] != "test-model" || first["temperature"] != 0.0 || first["seed"] != 7.0 {
		t.Errorf("request model %v temperature %v seed %v", first["model"], first["temperature"], first["seed"])
	}
	// the tools array: every environment tool in the function format
	tools := first["tools"].([]any)
	if len(tools) != 28 {
		t.Errorf("%d tools, want crm's 28", len(tools))
	}
	var getLead, fn map[string]any
	for _, tl := range tools {
		if f := tl.(map[string]any)["function"].(map[string]any); f["name"] == "get_lead" {
			getLead, fn = tl.(map[string]any), f
		}
	}
	if getLead["type"] != "function" || fn["name"] != "get_lead" || fn["description"] == "" ||
		fn["parameters"].(map[string]any)["required"].([]any)[0] != "leadId" {
		t.Errorf("get_lead tool = %v, want get_lead in the function format with its schema", getLead)
	}
	// message order and tool_call_id pairing, as the last request sent them
	type msg struct{ role, callID, has string }
	var got []msg
	for _, m := range api.requests[2]["messages"].([]any) {
		mm := m.(map[string]any)
		id, _ := mm["tool_call_id"].(string)
		content, _ := mm["content"].(string)
		has := ""
		switch {
		case strings.Contains(content, "invalid_input"):
			has = "invalid_input"
		case strings.Contains(content, `"status":"disqualified"`):
			has = "disqualified"
		case mm["tool_calls"] != nil:
			has = "tool_calls"
		}
		got = append(got, msg{mm["role"].(string), id, has})
	}
	want := []msg{{"system", "", ""}, {"user", "", ""}, {"assistant", "", "tool_calls"},
		{"tool", "call_a", ""}, {"tool", "call_b", "invalid_input"},
		{"assistant", "", "tool_calls"}, {"tool", "call_c", "disqualified"}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(msg{})); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	// every request and response is in the trace
	trace := string(o.Artifacts.Trace)
	if n := strings.Count(trace, `"type":"model_request"`); n != 3 {
		t.Errorf("%d model_request events in the trace, want 3", n)
	}
	if n := strings.Count(trace, `"type":"model_response"`); n != 3 {
		t.Errorf("%d model_response events in the trace, want 3", n)
	}
}

func TestRetries(t *testing.T) {
	o, api, waits := rollout(t, []turn{
		{status: 429, retryAfter: "3", body: `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`},
		{status: 500, body: `{"error":{"message":"The server had an error","type":"server_error","code":null}}`},
		{body: final("nothing to do")},
	}, openai.Config{})
	if diff := cmp.Diff([]time.Duration{3 * time.Second, 2 * time.Second}, waits); diff != "" {
		t.Errorf("waits (-want +got): %s", diff)
	}
	if len(api.requests) != 3 || o.Result.TerminationReason != runner.Completed || string(o.Result.AgentOutput) != `"nothing to do"` {
		t.Errorf("%d requests, %s, output %s; want 3, completed, the final answer", len(api.requests), o.Result.TerminationReason, o.Result.AgentOutput)
	}
}

func TestRetriesAreBounded(t *testing.T) {
	var turns []turn
	for range 3 {
		turns = append(turns, turn{status: 503, retryAfter: "86400", body: `overloaded`})
	}
	o, _, waits := rollout(t, turns, openai.Config{API: modelapi.Client{MaxRetries: 2}})
	if diff := cmp.Diff([]time.Duration{modelapi.MaxRetryWait, modelapi.MaxRetryWait}, waits); diff != "" {
		t.Errorf("waits (-want +got): %s", diff)
	}
	if o.Result.TerminationReason != runner.AgentError || o.Result.Error == nil || !strings.Contains(*o.Result.Error, "overloaded") {
		t.Errorf("%s, error %v; want agent_error with the API's message", o.Result.TerminationReason, o.Result.Error)
	}
}

func TestFatalErrorsEndTheRollout(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		body   string
		want   string
	}{
		{"auth", 401, `{"error":{"message":"Incorrect API key provided: sk-te****","type":"invalid_request_error","code":"invalid_api_key"}}`, "invalid_api_key: Incorrect API key provided"},
		{"context length", 400, `{"error":{"message":"This model's maximum context length is 8192 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}`, "context_length_exceeded: This model's maximum context length"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, _, waits := rollout(t, []turn{{status: tc.status, body: tc.body}}, openai.Config{})
			if len(waits) != 0 {
				t.Errorf("retried a %d: waits %v", tc.status, waits)
			}
			if o.Result.TerminationReason != runner.AgentError || o.Result.Error == nil || !strings.Contains(*o.Result.Error, tc.want) {
				t.Errorf("%s, error %v; want agent_error with %q", o.Result.TerminationReason, o.Result.Error, tc.want)
			}
		})
	}
}

func TestMaxTurns(t *testing.T) {
	get := turn{body: toolCalls([3]string{"c", "get_clock", `{}`})}
	o, _, _ := rollout(t, []turn{get, get}, openai.Config{MaxTurns: 2})
	if o.Result.TerminationReason != runner.AgentError || !strings.Contains(*o.Result.Error, "2 turns") {
		t.Errorf("%s, %v; want agent_error naming the 2 turns", o.Result.TerminationReason, o.Result.Error)
	}
}

func TestTools(t *testing.T) {
	got, _ := json.Marshal(openai.Tools([]env.ToolSpec{{Name: "t", Description: "d", InputSchema: json.RawMessage(`{"type":"object"}`)}}))
	want := `[{"type":"function","function":{"name":"t","description":"d","parameters":{"type":"object"}}}]`
	if string(got) != want {
		t.Errorf("Tools = %s, want %s", got, want)
	}
}
