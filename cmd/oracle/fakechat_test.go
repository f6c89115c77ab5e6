package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
)

// fakeChat is the script command fakechat [-fail N] P: it starts a fake
// OpenAI-compatible chat API (POST /chat/completions) for the rest of the
// script and points OPENAI_BASE_URL at it, for the "model" agent of
// ORACLE_TEST_MODEL. Its model answers crm's weighted-pipeline question
// the way a model does, differently from one conversation to the next: it
// calls weighted_pipeline, then answers with the tool's figure with
// probability P, and with a wrong one otherwise; any other question it
// cannot answer. The n-th conversation draws from a PCG seeded with n
// (seeded), so a script's outcomes repeat. With -fail N its first N requests answer 503.
//
// fakechat -count N asserts that the last fake API started has had N
// conversations that got as far as the tool's answer.
func fakeChat(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) == 2 && args[0] == "-count" {
		want, err := strconv.Atoi(args[1])
		ts.Check(err)
		fakeModels.Lock()
		m := fakeModels.last[ts]
		fakeModels.Unlock()
		if m == nil {
			ts.Fatalf("fakechat -count: no fake API started")
		}
		m.mu.Lock()
		got := int(m.n)
		m.mu.Unlock()
		if (got == want) == neg {
			ts.Fatalf("fakechat: %d conversations, want %s%d", got, map[bool]string{true: "not ", false: ""}[neg], want)
		}
		return
	}
	fail := 0
	if len(args) == 3 && args[0] == "-fail" {
		n, err := strconv.Atoi(args[1])
		ts.Check(err)
		fail, args = n, args[2:]
	}
	if neg || len(args) != 1 {
		ts.Fatalf("usage: fakechat [-fail N] P")
	}
	p, err := strconv.ParseFloat(args[0], 64)
	if err != nil || p < 0 || p > 1 {
		ts.Fatalf("fakechat: %q is not a probability", args[0])
	}
	m := &fakeModel{pass: p, fail: fail}
	srv := httptest.NewServer(m)
	fakeModels.Lock()
	fakeModels.last[ts] = m
	fakeModels.Unlock()
	ts.Defer(func() {
		srv.Close()
		fakeModels.Lock()
		delete(fakeModels.last, ts)
		fakeModels.Unlock()
	})
	ts.Setenv("OPENAI_BASE_URL", srv.URL)
}

// fakeModels are the last fake API each script started.
var fakeModels = struct {
	sync.Mutex
	last map[*testscript.TestScript]*fakeModel
}{last: map[*testscript.TestScript]*fakeModel{}}

type fakeModel struct {
	pass float64
	mu   sync.Mutex
	fail int // requests still to refuse
	n    uint64
}

type fakeMessage struct {
	Role    string  `json:"role"`
	Content *string `json:"content"`
}

func (m *fakeModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Messages []fakeMessage `json:"messages"`
	}
	body, _ := io.ReadAll(r.Body)
	if r.URL.Path != "/chat/completions" || json.Unmarshal(body, &req) != nil || len(req.Messages) < 2 {
		http.Error(w, `{"error":{"message":"not a chat completion request"}}`, http.StatusBadRequest)
		return
	}
	m.mu.Lock()
	if m.fail > 0 {
		m.fail--
		m.mu.Unlock()
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, `{"error":{"message":"the fake model is overloaded","code":"overloaded"}}`)
		return
	}
	last := req.Messages[len(req.Messages)-1]
	var draw float64
	if last.Role == "tool" {
		m.n++
		draw = seeded(fmt.Sprint("fakechat/", m.n)).Float64()
	}
	m.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch {
	case last.Role == "user" && req.Messages[1].Content != nil && isWeightedQuestion(*req.Messages[1].Content):
		io.WriteString(w, `{"choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"weighted_pipeline","arguments":"{}"}}]}}]}`)
	case last.Role == "tool" && last.Content != nil:
		var v struct {
			WeightedAmount float64 `json:"weightedAmount"`
		}
		json.Unmarshal([]byte(*last.Content), &v)
		amount := v.WeightedAmount
		if draw >= m.pass {
			amount *= 0.9 // a slip
		}
		writeAnswer(w, fmt.Sprintf("The weighted pipeline is $%.2f.", amount))
	default:
		writeAnswer(w, "I cannot answer that.")
	}
}

func isWeightedQuestion(task string) bool { return strings.Contains(strings.ToLower(task), "weighted") }

func writeAnswer(w io.Writer, text string) {
	b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
		"message": map[string]any{"role": "assistant", "content": text}}}})
	w.Write(b)
}
