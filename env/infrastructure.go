package env

import (
	"context"
	"errors"
)

// InfrastructureError is an agent's error that is trouble with the
// infrastructure the agent runs on, not a failure of the agent: a model API
// that cannot be reached, a 5xx or a rate limit that outlasted the retries,
// an exhausted quota, a key the API refuses, an exec: command that does not
// exist. The runner records such a rollout as agent_error with
// "infrastructure": true in result.json, and the oracle counts it as an
// error, apart from the graded runs: it is never a fail.
type InfrastructureError struct{ Err error }

func (e *InfrastructureError) Error() string { return e.Err.Error() }
func (e *InfrastructureError) Unwrap() error { return e.Err }

// Infrastructure marks err as trouble with the infrastructure; nil stays
// nil.
func Infrastructure(err error) error {
	if err == nil {
		return nil
	}
	return &InfrastructureError{Err: err}
}

// IsInfrastructure reports whether err, or an error it wraps, was marked by
// Infrastructure.
func IsInfrastructure(err error) bool {
	_, ok := errors.AsType[*InfrastructureError](err)
	return ok
}

type noticeKey struct{}

// WithNotices returns a context whose rollouts tell notice what a person
// watching them should know while they run, such as a model API's request
// being retried. The text is the agent's, from outside: the receiver
// escapes it before it reaches a terminal.
func WithNotices(ctx context.Context, notice func(text string)) context.Context {
	return context.WithValue(ctx, noticeKey{}, notice)
}

// Notify tells the receiver WithNotices set on ctx, if any, of text. It
// never reaches an artifact or a trace.
func Notify(ctx context.Context, text string) {
	if notice, ok := ctx.Value(noticeKey{}).(func(string)); ok && notice != nil {
		notice(text)
	}
}
