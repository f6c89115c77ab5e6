package command

import (
	"errors"
	"io"
	"strings"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/internal/canon"
)

// FormatVersion is the version of every --json output's shape, the value
// of its "formatVersion" member. Its schemas are under docs/schemas/.
const FormatVersion = 1

// writeJSON prints v as indented JSON, the characters a terminal would act
// on escaped (canon.VisibleJSON).
func writeJSON(w io.Writer, v any) error {
	b, err := canon.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(canon.VisibleJSON(b))
	return err
}

// writeEnvironments prints the --json form of a command that lists what
// it found for each environment (list, verifier list).
func writeEnvironments[T any](w io.Writer, envs []T) error {
	return writeJSON(w, struct {
		FormatVersion int `json:"formatVersion"`
		Environments  []T `json:"environments"`
	}{FormatVersion, nonNil(envs)})
}

// jsonError is what a command run with --json prints when it fails.
type jsonError struct {
	FormatVersion int `json:"formatVersion"`
	Error         struct {
		Code    string   `json:"code"`
		Message string   `json:"message"`
		Known   []string `json:"known,omitempty"` // what exists, for a not-found error
	} `json:"error"`
}

// writeJSONError prints the error object of --json for err, its message
// worded by rename.
func writeJSONError(w io.Writer, err error) error {
	var e jsonError
	e.FormatVersion = FormatVersion
	e.Error.Code = errorCode(err)
	e.Error.Message = errorMessage(err)
	if coded, ok := errors.AsType[*env.Error](err); ok {
		e.Error.Known = coded.Known
	}
	return writeJSON(w, e)
}

// wantsJSON reports whether the command line asks for JSON output: --json,
// or --format json (-f json).
func wantsJSON(args []string) bool {
	if len(args) > 0 {
		args = args[1:]
	}
	for i, a := range args {
		if a == "--" {
			return false
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") {
			continue
		}
		switch name {
		case "json":
			return !hasValue || value == "true" || value == "1"
		case "format", "f":
			if !hasValue && i+1 < len(args) {
				value = args[i+1]
			}
			if value == "json" {
				return true
			}
		}
	}
	return false
}
