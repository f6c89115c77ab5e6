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
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// fakeChat is the script command fakechat: a fake model provider for the
// rest of the script, serving both OpenAI's chat API (POST
// /chat/completions, OPENAI_BASE_URL) and Anthropic's Messages API (POST
// /v1/messages, ANTHROPIC_BASE_URL), for the "model" agent of
// ORACLE_TEST_MODEL and for openai: and anthropic: agents a manifest
// declares. Its model answers crm's weighted-pipeline question the way a
// model does, differently from one conversation to the next: it calls
// weighted_pipeline, then answers with the tool's figure with probability
// P, and with a wrong one otherwise. Asked TASK-007's conversion into
// Quillon Analytics, it makes a duplicate account for Quillon (the task's
// forbidden effect) with the probability -forbid gives (0 by default), and
// gives up. Any other question it cannot answer. The n-th conversation to
// reach the tool's answer draws from a PCG seeded with n (seeded), and so
// does the n-th conversation about Quillon, so a script's outcomes repeat
// whatever order the conversations run in.
//
//	fakechat [-fail N] [-delay D] [-forbid F] P  start it: with -fail
//	    its first N requests answer 503; with -delay each request takes D
//	    (a Go duration) before it is answered
//	fakechat -count N        the last fake API started has had N
//	    conversations that got as far as weighted_pipeline's answer
//	fakechat -peak N         at most N requests were in flight at once,
//	    and N were at some moment
//	fakechat -temperature X  every request asked for temperature X
//	fakechat -model NAME     every request named the model NAME
//	fakechat -requests N     the last fake API started has had N
//	    requests
//	fakechat -stop           stop the last fake API started (its
//	    address refuses connections from then on)
//
// With -echo the fake echoes the request's Authorization header in each
// answer (a "system_fingerprint"), as an API that reflects a key would.
//
// Each assertion takes ! to assert the opposite.
func fakeChat(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) == 2 && strings.HasPrefix(args[0], "-") && args[0] != "-fail" && args[0] != "-delay" && args[0] != "-forbid" && args[0] != "-echo" {
		fakeChatAssert(ts, neg, args[0], args[1])
		return
	}
	if len(args) == 1 && args[0] == "-stop" {
		fakeModels.Lock()
		m := fakeModels.last[ts]
		fakeModels.Unlock()
		if m == nil || m.srv == nil {
			ts.Fatalf("fakechat -stop: no fake API started")
		}
		m.srv.Close()
		return
	}
	m := &fakeModel{temperatures: map[float64]bool{}, models: map[string]bool{}}
	for len(args) > 1 {
		switch args[0] {
		case "-echo":
			m.echo = true
			args = args[1:]
			continue
		case "-fail":
			n, err := strconv.Atoi(args[1])
			ts.Check(err)
			m.fail = n
		case "-delay":
			d, err := time.ParseDuration(args[1])
			ts.Check(err)
			m.delay = d
		case "-forbid":
			f, err := strconv.ParseFloat(args[1], 64)
			ts.Check(err)
			m.forbid = f
		default:
			ts.Fatalf("usage: fakechat [-fail N] [-delay D] [-forbid F] P")
		}
		args = args[2:]
	}
	if neg || len(args) != 1 {
		ts.Fatalf("usage: fakechat [-fail N] [-delay D] [-forbid F] P")
	}
	p, err := strconv.ParseFloat(args[0], 64)
	if err != nil || p < 0 || p > 1 {
		ts.Fatalf("fakechat: %q is not a probability", args[0])
	}
	m.pass = p
	srv := httptest.NewServer(m)
	m.srv = srv
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
	ts.Setenv("ANTHROPIC_BASE_URL", srv.URL)
}

// fakeChatAssert is fakechat -count, -peak, -temperature and -model.
func fakeChatAssert(ts *testscript.TestScript, neg bool, what, want string) {
	fakeModels.Lock()
	m := fakeModels.last[ts]
	fakeModels.Unlock()
	if m == nil {
		ts.Fatalf("fakechat %s: no fake API started", what)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var ok bool
	var got string
	switch what {
	case "-count":
		n, err := strconv.Atoi(want)
		ts.Check(err)
		ok, got = int(m.n) == n, fmt.Sprintf("%d conversations", m.n)
	case "-peak":
		n, err := strconv.Atoi(want)
		ts.Check(err)
		ok, got = m.peak == n, fmt.Sprintf("at most %d requests at once", m.peak)
	case "-temperature":
		x, err := strconv.ParseFloat(want, 64)
		ts.Check(err)
		ok, got = len(m.temperatures) == 1 && m.temperatures[x], fmt.Sprintf("temperatures %v", m.temperatures)
	case "-model":
		ok, got = len(m.models) == 1 && m.models[want], fmt.Sprintf("models %v", m.models)
	case "-requests":
		n, err := strconv.Atoi(want)
		ts.Check(err)
		ok, got = m.requests == n, fmt.Sprintf("%d requests", m.requests)
	default:
		ts.Fatalf("usage: fakechat -count N | -peak N | -temperature X | -model NAME")
	}
	if ok == neg {
		ts.Fatalf("fakechat: %s, want %s%s %s", got, map[bool]string{true: "not ", false: ""}[neg], what, want)
	}
}

// fakeModels are the last fake API each script started.
var fakeModels = struct {
	sync.Mutex
	last map[*testscript.TestScript]*fakeModel
}{last: map[*testscript.TestScript]*fakeModel{}}

type fakeModel struct {
	pass, forbid float64
	delay        time.Duration
	echo         bool // echo the Authorization header in each answer
	srv          *httptest.Server

	mu           sync.Mutex
	fail         int    // requests still to refuse
	n            uint64 // conversations that reached the tool's answer
	quillon      uint64 // conversations about Quillon
	now, peak    int    // requests in flight, and the most at once
	requests     int    // requests received
	temperatures map[float64]bool
	models       map[string]bool
}

// fakeRequest is what the fake reads of a request of either API: OpenAI's
// messages have a string content, Anthropic's a list of blocks.
type fakeRequest struct {
	Model       string  `json:"model"`
	Temperature float64 `json:"temperature"`
	Messages    []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

// turn is what the conversation so far asks of the model: the task's
// text, and the tool's answer when the last message holds one.
func (r fakeRequest) turn(anthropic bool) (task, toolAnswer string, answered bool) {
	first := 1 // OpenAI's conversation starts with the system prompt
	if anthropic {
		first = 0
	}
	if len(r.Messages) <= first {
		return "", "", false
	}
	task = fakeText(r.Messages[first].Content, "text")
	last := r.Messages[len(r.Messages)-1]
	switch {
	case !anthropic && last.Role == "tool":
		return task, fakeText(last.Content, ""), true
	case anthropic && len(r.Messages) > 1 && last.Role == "user":
		return task, fakeText(last.Content, "tool_result"), true
	}
	return task, "", false
}

// fakeText is a message's content: a string, or the text of its first
// block of type typ.
func fakeText(content json.RawMessage, typ string) string {
	var s string
	if json.Unmarshal(content, &s) == nil {
		return s
	}
	var blocks []struct {
		Type    string `json:"type"`
		Text    string `json:"text"`
		Content string `json:"content"`
	}
	json.Unmarshal(content, &blocks)
	for _, b := range blocks {
		if b.Type == typ {
			return b.Text + b.Content
		}
	}
	return ""
}

func (m *fakeModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	anthropic := r.URL.Path == "/v1/messages"
	var req fakeRequest
	body, _ := io.ReadAll(r.Body)
	if r.URL.Path != "/chat/completions" && !anthropic || json.Unmarshal(body, &req) != nil {
		http.Error(w, `{"error":{"message":"not a chat completion or messages request"}}`, http.StatusBadRequest)
		return
	}
	task, answer, answered := req.turn(anthropic)
	m.mu.Lock()
	m.now++
	m.requests++
	m.peak = max(m.peak, m.now)
	m.temperatures[req.Temperature] = true
	m.models[req.Model] = true
	m.mu.Unlock()
	time.Sleep(m.delay)
	m.mu.Lock()
	m.now--
	if m.fail > 0 {
		m.fail--
		m.mu.Unlock()
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, `{"error":{"message":"the fake model is overloaded","code":"overloaded"}}`)
		return
	}
	var draw float64
	quillon := !answered && strings.Contains(task, "Quillon")
	switch {
	case answered && isWeightedQuestion(task):
		m.n++
		draw = seeded(fmt.Sprint("fakechat/", m.n)).Float64()
	case quillon:
		m.quillon++
		draw = seeded(fmt.Sprint("fakechat/quillon/", m.quillon)).Float64()
	}
	m.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if m.echo {
		buf := &echoBuffer{ResponseWriter: w}
		defer buf.send(r.Header.Get("Authorization"))
		w = buf
	}
	switch {
	case quillon && draw < m.forbid && anthropic:
		io.WriteString(w, `{"content":[{"type":"tool_use","id":"c1","name":"create_account","input":{"actorUserId":"USR-003","name":"Quillon Analytics Ltd"}}],"stop_reason":"tool_use"}`)
	case quillon && draw < m.forbid:
		io.WriteString(w, `{"choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"create_account","arguments":"{\"actorUserId\":\"USR-003\",\"name\":\"Quillon Analytics Ltd\"}"}}]}}]}`)
	case !answered && isWeightedQuestion(task):
		if anthropic {
			io.WriteString(w, `{"content":[{"type":"tool_use","id":"c1","name":"weighted_pipeline","input":{}}],"stop_reason":"tool_use"}`)
		} else {
			io.WriteString(w, `{"choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"weighted_pipeline","arguments":"{}"}}]}}]}`)
		}
	case answered && !isWeightedQuestion(task):
		writeAnswer(w, anthropic, "I could not finish this task.")
	case answered:
		var v struct {
			WeightedAmount float64 `json:"weightedAmount"`
		}
		json.Unmarshal([]byte(answer), &v)
		amount := v.WeightedAmount
		if draw >= m.pass {
			amount *= 0.9 // a slip
		}
		writeAnswer(w, anthropic, fmt.Sprintf("The weighted pipeline is $%.2f.", amount))
	default:
		writeAnswer(w, anthropic, "I cannot answer that.")
	}
}

func isWeightedQuestion(task string) bool { return strings.Contains(strings.ToLower(task), "weighted") }

func writeAnswer(w io.Writer, anthropic bool, text string) {
	var v any = map[string]any{"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
		"message": map[string]any{"role": "assistant", "content": text}}}}
	if anthropic {
		v = map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}, "stop_reason": "end_turn"}
	}
	b, _ := json.Marshal(v)
	w.Write(b)
}

// echoBuffer holds an answer's body, sent with the key echoed in it.
type echoBuffer struct {
	http.ResponseWriter
	body []byte
}

func (b *echoBuffer) Write(p []byte) (int, error) {
	b.body = append(b.body, p...)
	return len(p), nil
}

func (b *echoBuffer) send(key string) {
	k, _ := json.Marshal(key)
	b.ResponseWriter.Write([]byte(`{"system_fingerprint":` + string(k) + `,`))
	b.ResponseWriter.Write(b.body[1:])
}
