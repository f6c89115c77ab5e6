package env

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"unsafe"
)

// Tool is one operation an agent may call on a state of type S.
//
// Run receives the rollout's context, the state and the call's input,
// already validated against InputSchema by the runner. What it returns
// reaches the agent as JSON. When it returns an error (or panics) the state
// is restored to what it was before the call, so a tool may change the state
// step by step and give up halfway.
//
// ctx is cancelled when the rollout ends (timeout, budget, cancellation). A
// tool that waits on anything should return when it is; one that does not
// is abandoned: the rollout ends on time without it, its changes are
// dropped, and the world it holds is never read again.
type Tool[S any] struct {
	Name        string
	Description string
	// InputSchema is a JSON Schema (draft 2020-12 unless it says otherwise)
	// for the input object.
	InputSchema string
	Run         func(ctx context.Context, s *S, input json.RawMessage) (any, error)
	// ReadOnly declares that Run never changes the state, whatever its
	// input and whether it fails or not. The runner then takes no snapshot
	// of the state before a call. Definition.CheckReadOnly turns the
	// declaration into a check, for the environment's tests.
	ReadOnly bool
	// Writes declares which top-level fields of the state (a struct), by
	// their JSON names, Run may change, e.g. {"opportunities", "auditLog",
	// "sequences"}: it must leave every other field as it was, the values
	// they refer to included. Before each call the tool then gets fresh
	// copies of those fields only, and a failed call is undone by putting
	// the old ones back, so a call costs a copy of what it may write rather
	// than of the whole state. nil (or empty) declares nothing: a copy of
	// the whole state is taken before each call. Definition.CheckReadOnly
	// turns the declaration into a check: a call that changes another field
	// fails with the tool error writes_violated and is undone. A tool
	// cannot be both ReadOnly and declare Writes; New rejects a name that is
	// not a field of the state.
	//
	// A name with a property of the input in brackets,
	// "opportunities[opportunityId]", declares that Run changes, of that
	// field (a list of objects with a string "id"), only the member whose
	// id is the input's property, and may append members: it leaves the
	// others where and as they are. A call then costs a copy of that member
	// rather than of the list, but for the first write of the list in a
	// rollout (see members.go). The checked mode fails a call that changes
	// another member or removes one.
	Writes []string
}

// Typed adapts a function taking a decoded input struct to Tool.Run. The
// input is decoded with unknown fields rejected; a decoding failure is an
// invalid_input tool error.
func Typed[S, In any](f func(ctx context.Context, s *S, in In) (any, error)) func(context.Context, *S, json.RawMessage) (any, error) {
	plan := planInput(reflect.TypeFor[In]())
	return func(ctx context.Context, s *S, raw json.RawMessage) (any, error) {
		var in In
		if len(bytes.TrimSpace(raw)) > 0 && (plan == nil || !plan.decode(raw, unsafe.Pointer(&in))) {
			// not plain (see inputPlan): encoding/json decodes it, from the start
			in = *new(In)
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.DisallowUnknownFields()
			dec.UseNumber()
			if err := dec.Decode(&in); err != nil {
				return nil, &ToolError{Code: "invalid_input", Message: err.Error()}
			}
		}
		return f(ctx, s, in)
	}
}

// ToolSpec is what an agent is told about a tool.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	// ReadOnly is the tool's declaration that it never changes the state
	// (MCP's readOnlyHint). It is not part of the JSON agents receive.
	ReadOnly bool `json:"-"`
}

// ToolError is an error returned to the agent as a tool result with isError
// true. Its JSON form is {"code","message","details"}.
type ToolError struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details,omitempty"`
}

func (e *ToolError) Error() string { return e.Code + ": " + e.Message }

// Errorf returns a ToolError with the given code and a formatted message.
// Tools use it for errors the agent can act on: not_found, conflict,
// invalid_state and the like.
func Errorf(code, format string, args ...any) *ToolError {
	return &ToolError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// AsToolError turns any error into a ToolError; errors that are not one get
// the code tool_error.
func AsToolError(err error) *ToolError {
	var te *ToolError
	if errors.As(err, &te) {
		return te
	}
	return &ToolError{Code: "tool_error", Message: err.Error()}
}
