package openai_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-oracle/oracle/agent/openai"
	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/runner"
)

// apiAnswer is one scripted apiAnswer of a model API: a status and a body.
type apiAnswer struct {
	status int
	body   string
}

// scriptedRollout runs the openai agent on crm TASK-008 against an API
// that gives answers in turn (the last again when they run out), with two
// retries that do not wait, and returns the outcome and the notices the
// rollout gave.
func scriptedRollout(t *testing.T, answers []apiAnswer) (*runner.Result, []string) {
	t.Helper()
	var mu sync.Mutex
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		a := answers[min(n, len(answers)-1)]
		n++
		mu.Unlock()
		w.WriteHeader(a.status)
		w.Write([]byte(a.body))
	}))
	defer srv.Close()
	return rolloutAt(t, srv.URL+"/v1")
}

func rolloutAt(t *testing.T, base string) (*runner.Result, []string) {
	t.Helper()
	cfg := openai.Config{Model: "test-model", BaseURL: base, APIKey: "sk-test"}
	cfg.API.MaxRetries = 2
	cfg.API.Sleep = func(context.Context, time.Duration) error { return nil }
	e, task, agent := task008(t, cfg)
	var notices []string
	var mu sync.Mutex
	ctx := env.WithNotices(context.Background(), func(text string) {
		mu.Lock()
		notices = append(notices, text)
		mu.Unlock()
	})
	o, err := runner.Run(ctx, e, task, agent, runner.Config{Agent: "openai:test-model", ResultOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	return o.Result, notices
}

const done = `{"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"Nothing to do."}}]}`

// What says nothing about the model is an infrastructure error, never a
// graded fail: an API that keeps failing or cannot be reached, an exhausted
// quota (not retried), a refused key, an unknown model. A bad request is the
// agent's. Each retry is a notice as it happens.
func TestInfrastructureErrors(t *testing.T) {
	for _, tt := range []struct {
		name    string
		answers []apiAnswer
		infra   bool
		notices int
	}{
		{"5xx outlasting the retries", []apiAnswer{{503, `{"error":{"message":"overloaded"}}`}}, true, 2},
		{"rate limit outlasting the retries", []apiAnswer{{429, `{"error":{"message":"slow down","code":"rate_limit_exceeded"}}`}}, true, 2},
		{"exhausted quota", []apiAnswer{{429, `{"error":{"message":"You exceeded your current quota","code":"insufficient_quota"}}`}}, true, 0},
		{"refused key", []apiAnswer{{401, `{"error":{"message":"Incorrect API key"}}`}}, true, 0},
		{"no such model", []apiAnswer{{404, `{"error":{"message":"The model does not exist"}}`}}, true, 0},
		{"bad request", []apiAnswer{{400, `{"error":{"message":"context too long","code":"context_length_exceeded"}}`}}, false, 0},
		{"a retry that works", []apiAnswer{{502, `bad gateway`}, {200, done}}, false, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, notices := scriptedRollout(t, tt.answers)
			if r.Infrastructure != tt.infra {
				t.Errorf("Infrastructure = %v, want %v (error %v)", r.Infrastructure, tt.infra, deref(r.Error))
			}
			if tt.infra && r.TerminationReason != runner.AgentError {
				t.Errorf("termination %s, want agent_error", r.TerminationReason)
			}
			if len(notices) != tt.notices {
				t.Errorf("notices %q, want %d", notices, tt.notices)
			}
			for i, n := range notices {
				if !strings.HasPrefix(n, "model API request failed (POST ") || !strings.Contains(n, "/chat/completions: ") ||
					!strings.HasSuffix(n, "; retry "+string(rune('1'+i))+" of 2 in "+[]string{"1s", "2s"}[i]) {
					t.Errorf("notice %d = %q", i, n)
				}
			}
		})
	}
	t.Run("unreachable", func(t *testing.T) {
		srv := httptest.NewServer(http.NotFoundHandler())
		url := srv.URL
		srv.Close()
		r, notices := rolloutAt(t, url+"/v1")
		if !r.Infrastructure || len(notices) != 2 {
			t.Errorf("Infrastructure %v, %d notices; want true, 2", r.Infrastructure, len(notices))
		}
	})
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
