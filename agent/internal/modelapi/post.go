// Package modelapi posts a model agent's requests to a model provider's
// HTTP API: retries with backoff on 429 and 5xx answers (honouring
// Retry-After, bounded, cancelled with the rollout), the API's message for
// an error no retry will change, bounded requests and responses, and every
// request and response logged to the rollout's trace without the headers
// and credentials, which are secrets of the process (Secrets).
package modelapi

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/agent-oracle/oracle/internal/cassette"
	"github.com/agent-oracle/oracle/internal/secret"
)

// Defaults of Client.
const (
	DefaultMaxRetries = 5
	// MaxRetryWait bounds one wait between retries, whatever Retry-After
	// asks.
	MaxRetryWait = 60 * time.Second
	// DefaultMaxRequest bounds a request's body, which holds the whole
	// conversation: a conversation that outgrows it ends the rollout.
	DefaultMaxRequest = 16 << 20
	// DefaultMaxResponse bounds a response body read from the API.
	DefaultMaxResponse = 32 << 20
)

// maxLoggedError bounds the body of an error answer in the trace.
const maxLoggedError = 64 << 10

// Client posts JSON requests to one API.
type Client struct {
	// HTTP makes the requests; nil means a client with a 10-minute
	// timeout per request.
	HTTP *http.Client
	// Header is sent with every request (the key goes here). Its values
	// are secrets (see Secrets), never written anywhere.
	Header http.Header
	// MaxRetries bounds the retries of one request on 429 and 5xx answers
	// and failed connections; 0 means DefaultMaxRetries, a negative value
	// none.
	MaxRetries int
	// MaxRequest and MaxResponse bound the bytes of a request and of a
	// response; 0 means DefaultMaxRequest and DefaultMaxResponse.
	MaxRequest, MaxResponse int
	// Sleep waits between retries; nil waits d or until ctx ends.
	Sleep func(ctx context.Context, d time.Duration) error
	// Cassette, when set and not off, records the exchanges and replays
	// them (internal/cassette): set by whoever builds the client, with as
	// much of the cassette's identity as it knows (a judge: env, "judge",
	// task and its check's name); the rest comes from the rollout's
	// context (cassette.WithIdentity).
	Cassette *cassette.Config
}

// Log appends an event to the rollout's trace (env.AgentInput.Log).
type Log func(typ string, fields map[string]any)

// Request is one request of a conversation.
type Request struct {
	URL  string // the endpoint, as Endpoint makes it
	Body []byte // the JSON sent
	// Logged is what the trace records of the body; nil records Body. A
	// conversation's later requests repeat every earlier message, so an
	// agent logs the whole first request and then the new messages only
	// (NewMessages): the trace grows with the conversation, not with its
	// square.
	Logged any
	Turn   int
}

// NewMessages is what the trace records of a request after the first:
// the messages it adds to those sent before, the first of them being
// message From of the conversation.
type NewMessages[M any] struct {
	From     int `json:"messagesFrom"`
	Messages []M `json:"messages"`
}

// Post posts the request and returns the body of a 200 answer. It logs
// each attempt as model_request and model_response events of the request's
// turn, the request's logged body with the first attempt. An error answer
// other than 429 and 5xx, or one that is still one after the retries, is
// an error with the status and the API's message; so is a request over
// MaxRequest (the conversation has grown too long) and a response over
// MaxResponse, which is not retried: each retry is a paid call.
//
// The values of the headers and the credentials of the URL are added to the
// process's secrets (internal/secret) before anything is logged, so no
// writer of the rollout writes them, however the API echoes them back.
func (c Client) Post(ctx context.Context, req Request, log Log) ([]byte, error) {
	if c.Cassette != nil && c.Cassette.Mode != cassette.ModeOff && c.Cassette.Mode != "" {
		return c.postCassette(ctx, req, log)
	}
	secret.Add(c.Secrets(req.URL)...)
	retries := c.MaxRetries
	if retries == 0 {
		retries = DefaultMaxRetries
	}
	sleep := c.Sleep
	if sleep == nil {
		sleep = wait
	}
	shown := shownURL(req.URL)
	if limit := cmp.Or(c.MaxRequest, DefaultMaxRequest); len(req.Body) > limit {
		return nil, fmt.Errorf("the conversation has grown to %d bytes, over the limit of %d bytes a request may have; it ends here (give the model fewer turns with --model-max-turns, or tools shorter outputs)", len(req.Body), limit)
	}
	logged := req.Logged
	if logged == nil {
		logged = json.RawMessage(req.Body)
	}
	for attempt := 1; ; attempt++ {
		fields := map[string]any{"turn": req.Turn, "attempt": attempt, "url": shown}
		if attempt == 1 {
			fields["body"] = logged
		}
		log("model_request", fields)
		data, err := c.post(ctx, req, shown, log, attempt)
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
		notifyRetry(ctx, shown, f, attempt, retries, min(d, MaxRetryWait))
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
func (c Client) post(ctx context.Context, r Request, shown string, log Log, attempt int) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.URL, bytes.NewReader(r.Body))
	if err != nil {
		return nil, &failure{msg: hideURL(err, r.URL, shown).Error()}
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
		msg := hideURL(err, r.URL, shown).Error()
		log("model_response", map[string]any{"turn": r.Turn, "attempt": attempt, "error": msg})
		return nil, &failure{msg: msg, retry: true}
	}
	defer resp.Body.Close()
	limit := cmp.Or(c.MaxResponse, DefaultMaxResponse)
	data, err := io.ReadAll(io.LimitReader(resp.Body, int64(limit)+1))
	if err != nil {
		log("model_response", map[string]any{"turn": r.Turn, "attempt": attempt, "status": resp.StatusCode, "error": err.Error()})
		return nil, &failure{msg: err.Error(), retry: true}
	}
	if len(data) > limit {
		// not retried: the next answer would most likely be as large,
		// and each retry is a paid call
		msg := fmt.Sprintf("%s: the response is larger than the limit of %d bytes", resp.Status, limit)
		log("model_response", map[string]any{"turn": r.Turn, "attempt": attempt, "status": resp.StatusCode, "error": msg})
		return nil, &failure{msg: msg}
	}
	fields := map[string]any{"turn": r.Turn, "attempt": attempt, "status": resp.StatusCode}
	switch {
	case resp.StatusCode != http.StatusOK && len(data) > maxLoggedError:
		fields["body"] = strings.ToValidUTF8(string(data[:maxLoggedError]), "\uFFFD") + "…"
		fields["bodyBytes"] = len(data)
	case json.Valid(data):
		fields["body"] = json.RawMessage(data)
	default:
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
// defaulting to def, and returns it without a trailing slash on its path.
// Its query (?api-version=…) is kept: Endpoint puts it after the path.
// The error of a URL that is not one never shows its credentials.
func BaseURL(raw, def, variable string) (string, error) {
	if raw == "" {
		raw = def
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%s %q: give an http:// or https:// URL, e.g. %s", variable, hideUserinfo(raw), def)
	}
	u.Fragment, u.RawFragment = "", ""
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = strings.TrimRight(u.RawPath, "/")
	return u.String(), nil
}

// Endpoint is the URL of path (e.g. "/chat/completions") under a base URL
// BaseURL returned: the path after the base's, its query kept.
func Endpoint(base, path string) string {
	u, err := url.Parse(base)
	if err != nil {
		return base + path
	}
	u.Path = strings.TrimRight(u.Path, "/") + path
	if u.RawPath != "" {
		u.RawPath = strings.TrimRight(u.RawPath, "/") + path
	}
	return u.String()
}
