package env

import (
	"fmt"
	"strings"
)

// Error is an error with a code a program matches, such as task_not_found,
// and a message a person reads. Its text is "CODE: MESSAGE". When it is about
// a name that does not exist, Known lists the names that do (the message
// names them for a person, the first NameListMax of them when there are
// more), so a caller can suggest the nearest one or print them in a JSON
// error. Match it with errors.As:
//
//	var e *env.Error
//	if errors.As(err, &e) && e.Code == env.CodeTaskNotFound {
//		…
//	}
//
// An Error with no message is a sentinel: errors.Is(err, &Error{Code: c})
// reports whether err is, or wraps, an Error with the code c (ErrNoManifest
// is one).
type Error struct {
	Code    string
	Message string
	// Known lists what exists, for an error about something that does not.
	Known []string
	// Err is the cause, if any; Unwrap returns it.
	Err error
}

// The codes of the errors that more than one package returns or matches.
const (
	CodeEnvNotFound   = "env_not_found"
	CodeTaskNotFound  = "task_not_found"
	CodeAgentNotFound = "agent_not_found"
)

func (e *Error) Error() string {
	if e.Message == "" {
		return e.Code
	}
	return e.Code + ": " + e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is a sentinel Error (one with no message) with
// e's code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Message == "" && t.Code == e.Code
}

// NameListMax is how many names NameList writes before it only counts the
// rest.
const NameListMax = 20

// NameList joins names for a message: all of them, "none" when there is
// none, and past NameListMax the first NameListMax and how many more, so
// that an error about one of 100,000 tasks stays a line a person reads.
func NameList(names []string) string {
	switch {
	case len(names) == 0:
		return "none"
	case len(names) <= NameListMax:
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s, … and %d more", strings.Join(names[:NameListMax], ", "), len(names)-NameListMax)
}
