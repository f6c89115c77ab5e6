package openai_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-oracle/oracle/agent/internal/modelapi"
	"github.com/agent-oracle/oracle/agent/openai"
	"github.com/agent-oracle/oracle/runner"
)

// echoKey is a key a test API echoes back; userinfo is the credentials of
// the base URL.
const (
	echoKey  = "sk-echoed-4f9Xq/Zt_kB7"
	userinfo = "oracle-user:pa55-w0rd"
)

// scripted is a chat completions API answering from a script, each answer
// made from the request; it records the URLs it was asked.
type scripted struct {
	mu      sync.Mutex
	answers []func(r *http.Request) (int, string)
	urls    []string
}

func (s *scripted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	io.Copy(io.Discard, r.Body)
	s.urls = append(s.urls, r.URL.String())
	if len(s.answers) == 0 {
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	a := s.answers[0]
	s.answers = s.answers[1:]
	status, body := a(r)
	w.WriteHeader(status)
	io.WriteString(w, body)
}

func answer(status int, body string) func(*http.Request) (int, string) {
	return func(*http.Request) (int, string) { return status, body }
}

// runScripted runs the openai agent on crm TASK-008 against the script,
// the base URL being the server's with suffix and the userinfo.
func runScripted(t *testing.T, s *scripted, suffix string, api modelapi.Client) *runner.Outcome {
	t.Helper()
	srv := httptest.NewServer(s)
	defer srv.Close()
	base := strings.Replace(srv.URL, "http://", "http://"+userinfo+"@", 1) + suffix
	return runTask008(t, openai.Config{Model: "m", BaseURL: base, APIKey: echoKey, API: api})
}

// holdsSecret reports which secret data holds, as written or once its
// JSON (a document or JSON Lines) is decoded and written again without
// escapes.
func holdsSecret(data []byte) string {
	forms := [][]byte{data}
	for line := range bytes.Lines(data) {
		var v any
		if json.Unmarshal(line, &v) == nil {
			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false)
			enc.Encode(v)
			forms = append(forms, b.Bytes())
		}
	}
	for _, f := range forms {
		for _, s := range []string{echoKey, userinfo, "pa55-w0rd"} {
			if bytes.Contains(f, []byte(s)) {
				return s
			}
		}
	}
	return ""
}

func checkNoSecret(t *testing.T, o *runner.Outcome) {
	t.Helper()
	for name, data := range o.Artifacts.Files() {
		if s := holdsSecret(data); s != "" {
			t.Errorf("%s holds %q:\n%s", name, s, data)
		}
	}
	printed, _ := json.Marshal(o.Result)
	if s := holdsSecret(printed); s != "" {
		t.Errorf("the result (printed by run) holds %q: %s", s, printed)
	}
}

// TestSecretsReachNoArtifact: the key and the base URL's credentials,
// echoed back by the API wherever it may put them and however it escapes
// them, reach no artifact, trace or printed result.
func TestSecretsReachNoArtifact(t *testing.T) {
	const escaped = `\u0073k-echoed-4f9Xq\/Zt_kB7` // as a JSON string may spell it
	for _, tc := range []struct {
		name    string
		answers []func(*http.Request) (int, string)
	}{
		{"error body", []func(*http.Request) (int, string){
			answer(401, `{"error":{"message":"Incorrect API key provided: `+echoKey+` for `+userinfo+`","code":"invalid_api_key"}}`)}},
		{"escaped in an error body", []func(*http.Request) (int, string){
			answer(401, `{"error":{"message":"key `+escaped+`","code":"invalid_api_key"}}`)}},
		{"not JSON", []func(*http.Request) (int, string){answer(400, "bad key "+echoKey)}},
		{"retried", []func(*http.Request) (int, string){
			answer(503, `{"error":{"message":"overloaded for `+echoKey+`"}}`), answer(200, final("done"))}},
		{"a response field", []func(*http.Request) (int, string){
			answer(200, `{"system_fingerprint":"`+escaped+`","choices":[{"message":{"role":"assistant","content":"done"}}]}`)}},
		{"the answer", []func(*http.Request) (int, string){answer(200, final("your key is "+echoKey))}},
		{"the header echoed", []func(*http.Request) (int, string){func(r *http.Request) (int, string) {
			return 200, final("you sent " + r.Header.Get("Authorization") + " to " + r.Host)
		}}},
		{"a tool's input and the world", []func(*http.Request) (int, string){
			answer(200, toolCalls([3]string{"c1", "update_lead",
				`{"actorUserId":"USR-002","leadId":"LEAD-007","status":"disqualified","disqualifyReason":"key ` + echoKey + ` pass pa55-w0rd"}`})),
			answer(200, final("done"))}},
		{"nested in a tool's arguments, escaped", []func(*http.Request) (int, string){
			answer(200, toolCalls([3]string{"c1", "get_lead", `{"leadId":"` + escaped + `"}`})),
			answer(200, final("done"))}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := runScripted(t, &scripted{answers: tc.answers}, "/v1", modelapi.Client{Sleep: func(context.Context, time.Duration) error { return nil }})
			checkNoSecret(t, o)
			if !bytes.Contains(o.Artifacts.Trace, []byte("[redacted]")) {
				t.Errorf("the trace shows no redaction:\n%s", o.Artifacts.Trace)
			}
		})
	}
}

// TestUnreachableAPIShowsNoCredentials: the HTTP client's error names the
// URL; the trace and the result show it without its credentials.
func TestUnreachableAPIShowsNoCredentials(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	base := strings.Replace(srv.URL, "http://", "http://"+userinfo+"@", 1) + "/v1"
	srv.Close() // nothing listens there now
	o := runTask008(t, openai.Config{Model: "m", BaseURL: base, APIKey: echoKey, API: modelapi.Client{MaxRetries: -1}})
	if o.Result.TerminationReason != runner.AgentError {
		t.Fatalf("%s, want agent_error", o.Result.TerminationReason)
	}
	checkNoSecret(t, o)
	if strings.Contains(string(o.Artifacts.Trace), "oracle-user") {
		t.Errorf("the trace shows the user name of the base URL:\n%s", o.Artifacts.Trace)
	}
}

func TestBadBaseURLShowsNoCredentials(t *testing.T) {
	_, err := openai.New(openai.Config{Model: "m", BaseURL: "ftp://" + userinfo + "@host/v1"})
	if err == nil || strings.Contains(err.Error(), "pa55") || strings.Contains(err.Error(), "oracle-user") {
		t.Errorf("error %v, want one without the credentials", err)
	}
}

// TestBaseURLQueryKept: a base URL's query (Azure's api-version) follows
// the endpoint's path; a key in it is a secret too.
func TestBaseURLQueryKept(t *testing.T) {
	s := &scripted{answers: []func(*http.Request) (int, string){answer(200, final("done"))}}
	o := runScripted(t, s, "/v1/?api-version=2024-06-01&api-key=azure-key-123456789", modelapi.Client{})
	if len(s.urls) != 1 || s.urls[0] != "/v1/chat/completions?api-version=2024-06-01&api-key=azure-key-123456789" {
		t.Errorf("requests %q, want /v1/chat/completions with the base URL's query", s.urls)
	}
	if o.Result.TerminationReason != runner.Completed {
		t.Errorf("%s, %v", o.Result.TerminationReason, o.Result.Error)
	}
	if strings.Contains(string(o.Artifacts.Trace), "azure-key-123456789") {
		t.Errorf("the trace holds the key of the query:\n%s", o.Artifacts.Trace)
	}
	if !strings.Contains(string(o.Artifacts.Trace), "api-version=2024-06-01") {
		t.Errorf("the trace's URL lost its query:\n%s", o.Artifacts.Trace)
	}
}

// TestTraceHoldsEachMessageOnce: every request repeats the conversation,
// the trace records each message once, and a conversation over the
// request limit ends the rollout as agent_error, its artifacts whole.
func TestTraceHoldsEachMessageOnce(t *testing.T) {
	var answers []func(*http.Request) (int, string)
	for i := range 30 {
		answers = append(answers, answer(200, toolCalls([3]string{fmt.Sprintf("c%d", i), "get_lead",
			fmt.Sprintf(`{"leadId":"LEAD-007","note":"marker-%02d %s"}`, i, strings.Repeat("x", 2000))})))
	}
	s := &scripted{answers: answers}
	o := runScripted(t, s, "/v1", modelapi.Client{MaxRequest: 40 << 10})
	r := o.Result
	if r.TerminationReason != runner.AgentError || r.Error == nil || !strings.Contains(*r.Error, "over the limit") {
		t.Fatalf("%s, %v; want agent_error naming the request limit", r.TerminationReason, r.Error)
	}
	if len(s.urls) < 5 || len(s.answers) == 0 {
		t.Fatalf("%d requests, %d answers left; want the limit reached after some turns", len(s.urls), len(s.answers))
	}
	var requests []string
	for line := range bytes.Lines(o.Artifacts.Trace) {
		if bytes.Contains(line, []byte(`"type":"model_request"`)) {
			requests = append(requests, string(line))
		}
	}
	all := strings.Join(requests, "")
	for i := range len(s.urls) - 1 {
		// the assistant message of answer i is new in request i+2
		if n := strings.Count(all, fmt.Sprintf("marker-%02d", i)); n != 1 {
			t.Errorf("marker-%02d is in %d model_request events, want 1", i, n)
		}
	}
	if !strings.Contains(requests[0], `"tools"`) || strings.Contains(requests[1], `"tools"`) || !strings.Contains(requests[1], `"messagesFrom":2`) {
		t.Errorf("the first request is not logged whole, or a later one repeats it:\n%s\n%s", requests[0], requests[1])
	}
}

// TestLargeResponseNotRetried: a response over the limit ends the rollout
// at once, whatever its status: each retry is a paid call.
func TestLargeResponseNotRetried(t *testing.T) {
	for _, status := range []int{200, 500} {
		s := &scripted{answers: []func(*http.Request) (int, string){answer(status, strings.Repeat("y", 5000)), answer(200, final("done"))}}
		o := runScripted(t, s, "/v1", modelapi.Client{MaxResponse: 4096, Sleep: func(context.Context, time.Duration) error { return nil }})
		if len(s.urls) != 1 || o.Result.TerminationReason != runner.AgentError || !strings.Contains(*o.Result.Error, "larger than the limit") {
			t.Errorf("status %d: %d requests, %s %v; want 1 request and agent_error", status, len(s.urls), o.Result.TerminationReason, o.Result.Error)
		}
	}
}
