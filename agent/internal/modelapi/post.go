// Package modelapi posts a model agent's requests to a model provider's
// HTTP API: retries with backoff on 429 and 5xx answers (honouring
// Retry-After, bounded, cancelled with the rollout), the API's message for
// an error no retry will change, and every request and response logged to
// the rollout's trace without the headers that carry the key.
package modelapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Defaults of Client.
const (
	DefaultMaxRetries = 5
	// MaxRetryWait bounds one wait between retries, whatever Retry-After
	// asks.
	MaxRetryWait = 60 * time.Second
)

// maxBody bounds a response body read from the API.
const maxBody = 32 << 20

// Client posts JSON requests to one API.
type Client struct {
	// HTTP makes the requests; nil means a client with a 10-minute
	// timeout per request.
	HTTP *http.Client
	// Header is sent with every request (the key goes here); it is never
	// logged.
	Header http.Header
	// MaxRetries bounds the retries of one request on 429 and 5xx answers
	// and failed connections; 0 means DefaultMaxRetries, a negative value
	// none.
	MaxRetries int
	// Sleep waits between retries; nil waits d or until ctx ends.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Log appends an event to the rollout's trace (env.AgentInput.Log).
type Log func(typ string, fields map[string]any)

// Post posts body to url and returns the body of a 200 answer. It logs each
// attempt as model_request and model_response events of turn. An error
// answer other than 429 and 5xx, or one that is still one after the
// retries, is an error with the status and the API's message.
func (c Client) Post(ctx context.Context, url string, body []byte, log Log, turn int) ([]byte, error) {
	retries := c.MaxRetries
	if retries == 0 {
		retries = DefaultMaxRetries
	}
	sleep := c.Sleep
	if sleep == nil {
		sleep = wait
	}
	for attempt := 1; ; attempt++ {
		log("model_request", map[string]any{"turn": turn, "attempt": attempt, "url": url, "body": json.RawMessage(body)})
		data, err := c.post(ctx, url, body, log, turn, attempt)
		if err == nil {
			return data, nil
		}
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		var f *failure
		if !errors.As(err, &f) || !f.retry || attempt > retries || f.quota() {
			return nil, f.classify(err)
		}
		d := f.wait
		if d <= 0 {
			d = backoff(attempt)
		}
		notifyRetry(ctx, url, f, attempt, retries, min(d, MaxRetryWait))
		if err := sleep(ctx, min(d, MaxRetryWait)); err != nil {
			return nil, err
		}
	}
}

// failure is a request that did not give a 200 answer.
type failure struct {
	msg    string
	status int           // the HTTP status, 0 when there was no answer
	retry  bool          // a 429, a 5xx or a failed connection
	wait   time.Duration // what Retry-After asked for, 0 when nothing
}

func (f *failure) Error() string { return f.msg }

// post makes one request; its failures are *failure.
func (c Client) post(ctx context.Context, url string, body []byte, log Log, turn, attempt int) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, &failure{msg: err.Error()}
	}
	for k, v := range c.Header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	client := c.HTTP
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Minute}
	}
	resp, err := client.Do(req)
	if err != nil {
		log("model_response", map[string]any{"turn": turn, "attempt": attempt, "error": err.Error()})
		return nil, &failure{msg: err.Error(), retry: true}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err == nil && len(data) > maxBody {
		err = fmt.Errorf("response larger than %d bytes", maxBody)
	}
	if err != nil {
		log("model_response", map[string]any{"turn": turn, "attempt": attempt, "status": resp.StatusCode, "error": err.Error()})
		return nil, &failure{msg: err.Error(), retry: true}
	}
	fields := map[string]any{"turn": turn, "attempt": attempt, "status": resp.StatusCode}
	if json.Valid(data) {
		fields["body"] = json.RawMessage(data)
	} else {
		fields["body"] = string(data)
	}
	log("model_response", fields)
	switch {
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		return nil, &failure{msg: resp.Status + ": " + errorMessage(data), status: resp.StatusCode, retry: true, wait: retryAfter(resp.Header.Get("Retry-After"))}
	case resp.StatusCode != http.StatusOK:
		// auth, context length, a bad request: the API's message says which
		return nil, &failure{msg: resp.Status + ": " + errorMessage(data), status: resp.StatusCode}
	}
	return data, nil
}

// errorMessage is the API's message in an error body,
// {"error":{"message","code"}} (OpenAI) or {"error":{"type","message"}}
// (Anthropic), prefixed with the code or type; or the body itself,
// shortened, when it has neither shape.
func errorMessage(body []byte) string {
	var e struct {
		Error struct {
			Message string          `json:"message"`
			Type    string          `json:"type"`
			Code    json.RawMessage `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && e.Error.Message != "" {
		var code string
		if json.Unmarshal(e.Error.Code, &code) != nil || code == "" {
			code = e.Error.Type
		}
		if code != "" {
			return code + ": " + e.Error.Message
		}
		return e.Error.Message
	}
	s := strings.TrimSpace(string(body))
	if len(s) > 500 {
		s = s[:500] + "…"
	}
	return s
}

// retryAfter reads a Retry-After header: seconds or an HTTP date.
func retryAfter(h string) time.Duration {
	if h == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(h, 64); err == nil && s >= 0 {
		if s >= MaxRetryWait.Seconds() {
			return MaxRetryWait
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(h); err == nil {
		return max(time.Until(t), 0)
	}
	return 0
}

// backoff is the wait before retry n without a Retry-After: 1s, 2s, 4s…
func backoff(n int) time.Duration {
	return min(time.Second<<(n-1), MaxRetryWait)
}

func wait(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// SystemPrompt tells a model how a rollout ends.
const SystemPrompt = "You are an agent working on a task through the tools you are given. " +
	"Call tools as you need them. When you are done, reply with your final answer as plain text, without a tool call."

// BaseURL checks a base URL read from the variable named by variable,
// defaulting to def, and returns it without a trailing slash.
func BaseURL(raw, def, variable string) (string, error) {
	if raw == "" {
		raw = def
	}
	if !strings.HasPrefix(raw, "http://") && !strings.HasPrefix(raw, "https://") {
		return "", fmt.Errorf("%s %q: give an http:// or https:// URL, e.g. %s", variable, raw, def)
	}
	return strings.TrimRight(raw, "/"), nil
}
