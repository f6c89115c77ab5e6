package command

import (
	"errors"
	"fmt"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/runner"
)

// The codes of the command line's own errors, beside those of env.Error
// (task_not_found, …): the code of the --json error object, and the text's
// first word.
const (
	codeUsage  = "usage"  // a mistake in the command line
	codeExists = "exists" // a file a command would create is already there
	// codeRegression refuses to accept a case whose verdict goes from pass
	// to something else without --allow-regressions.
	codeRegression = "regression"
	// codeStale refuses to accept the artifacts of a report folder whose
	// baseline has changed since the check that made them.
	codeStale = "stale"
)

// usageError is a mistake in the command line.
func usageError(format string, args ...any) error {
	return &env.Error{Code: codeUsage, Message: fmt.Sprintf(format, args...)}
}

// existsError refuses to overwrite what is already there.
func existsError(format string, args ...any) error {
	return &env.Error{Code: codeExists, Message: fmt.Sprintf(format, args...)}
}

// errorCode is the code of err for the --json error object: the code of
// the coded error (an env.Error) it is or wraps, and "error" for anything
// else.
func errorCode(err error) string {
	if coded, ok := errors.AsType[*env.Error](err); ok && coded.Code != "" {
		return coded.Code
	}
	return "error"
}

// errorMessage is the text of err without its code, for a reader that is
// given the code apart: the message of a coded error, or the text of an
// error that wraps one (where the code is a word of the text).
func errorMessage(err error) string {
	if coded, ok := err.(*env.Error); ok && coded.Message != "" {
		return coded.Message
	}
	return err.Error()
}

// agentResolver is runner.Resolver whose errors name the flag that gave
// the value they are about.
type agentResolver struct{ runner.Resolver }

// Resolve is runner.Resolver.Resolve with sandboxWording.
func (r agentResolver) Resolve(e env.Environment, ref string) (env.Agent, error) {
	a, err := r.Resolver.Resolve(e, ref)
	return a, sandboxWording(err)
}

// sandboxWording words the sandbox's errors with the flags of the command
// line: a read-only path is an --agent-ro, and a project the sandbox
// cannot hide is avoided with --sandbox none.
func sandboxWording(err error) error {
	if e, ok := errors.AsType[*runner.ReadOnlyPathError](err); ok {
		return &reworded{err: err, msg: "sandbox: --agent-ro " + e.Path + ": " + e.Reason}
	}
	if _, ok := errors.AsType[*runner.ProjectHoldsSystemError](err); ok {
		return fmt.Errorf("%w (or use --sandbox none)", err)
	}
	return err
}
