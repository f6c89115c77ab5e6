package modelapi

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/agent-oracle/oracle/env"
)

// classify marks the error a request ended with as trouble with the
// infrastructure when it says nothing about the model's behaviour (see
// env.InfrastructureError): an API that could not be reached or kept
// failing (a failed connection, a 5xx or a 429 that outlasted the retries),
// an exhausted quota, a key the API refuses (401, 403) or a model or
// endpoint it does not have (404). A bad request (400, such as a
// conversation over the context length) is the agent's error. f is the
// failure err wraps, nil for any other error.
func (f *failure) classify(err error) error {
	if f == nil {
		return err
	}
	switch {
	case f.retry, f.quota(),
		f.status == http.StatusUnauthorized, f.status == http.StatusForbidden, f.status == http.StatusNotFound:
		return env.Infrastructure(err)
	}
	return err
}

// quota reports whether the failure is a 429 that says the account's
// quota or credit is spent: no retry can help.
func (f *failure) quota() bool {
	if f == nil || f.status != http.StatusTooManyRequests {
		return false
	}
	msg := strings.ToLower(f.msg)
	return strings.Contains(msg, "quota") || strings.Contains(msg, "billing") || strings.Contains(msg, "credit")
}

// notifyRetry tells whoever runs the rollout (env.Notify) that the request
// to url failed and is tried again after wait: one notice a retry, as it
// happens.
func notifyRetry(ctx context.Context, url string, f *failure, attempt, retries int, wait time.Duration) {
	msg := f.msg
	if !strings.Contains(msg, url) {
		msg = "POST " + url + ": " + msg
	}
	env.Notify(ctx, fmt.Sprintf("model API request failed (%s); retry %d of %d in %s", msg, attempt, retries, wait.Round(time.Millisecond)))
}
