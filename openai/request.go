package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// maxBody bounds a response body read from the API.
const maxBody = 32 << 20

// complete posts one turn, retrying 429 and 5xx answers and failed
// connections with backoff (Retry-After when the API gives one), and logs
// every request and response to the trace.
func (a *agent) complete(ctx context.Context, turn int, req chatRequest, log func(string, map[string]any)) (*chatResponse, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("openai %s: turn %d: request: %w", a.cfg.Model, turn, err)
	}
	url := a.cfg.BaseURL + "/chat/completions"
	for attempt := 1; ; attempt++ {
		log("model_request", map[string]any{"turn": turn, "attempt": attempt, "url": url, "body": json.RawMessage(body)})
		resp, err := a.post(ctx, url, body, log, turn, attempt)
		if err == nil {
			return resp, nil
		}
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		var f *failure
		if !errors.As(err, &f) || !f.retry || attempt > a.cfg.MaxRetries {
			return nil, fmt.Errorf("openai %s: turn %d: %w", a.cfg.Model, turn, err)
		}
		wait := f.wait
		if wait <= 0 {
			wait = backoff(attempt)
		}
		if err := a.cfg.Sleep(ctx, min(wait, MaxRetryWait)); err != nil {
			return nil, err
		}
	}
}

// failure is a request that did not give a chat completion.
type failure struct {
	msg   string
	retry bool          // a 429, a 5xx or a failed connection
	wait  time.Duration // what Retry-After asked for, 0 when nothing
}

func (f *failure) Error() string { return f.msg }

// post makes one request; its failures are *failure.
func (a *agent) post(ctx context.Context, url string, body []byte, log func(string, map[string]any), turn, attempt int) (*chatResponse, error) {
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, &failure{msg: err.Error()}
	}
	hreq.Header.Set("Content-Type", "application/json")
	if a.cfg.APIKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+a.cfg.APIKey)
	}
	resp, err := a.cfg.Client.Do(hreq)
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
		return nil, &failure{msg: resp.Status + ": " + errorMessage(data), retry: true, wait: retryAfter(resp.Header.Get("Retry-After"))}
	case resp.StatusCode != http.StatusOK:
		// auth, context length, a bad request: the API's message ends the rollout
		return nil, &failure{msg: resp.Status + ": " + errorMessage(data)}
	}
	var out chatResponse
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, &failure{msg: "the response is not a chat completion: " + err.Error()}
	}
	return &out, nil
}

// retryAfter reads a Retry-After header: seconds or an HTTP date.
func retryAfter(h string) time.Duration {
	if h == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(h, 64); err == nil && s >= 0 {
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
