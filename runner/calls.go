package runner

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/internal/canon"
)

// Call is one entry of calls.json: a tool call as the agent saw it (see
// env.Call, which verifiers read).
type Call = env.Call

// recordCall appends a call to calls.json's list. s.mu is held.
func (s *session) recordCall(tool string, input json.RawMessage, out json.RawMessage, isErr bool) {
	c := Call{Tool: tool, Input: input}
	if c.Input == nil {
		c.Input = json.RawMessage("null")
	}
	if isErr {
		c.Error = out
	} else {
		c.Output = out
		if c.Output == nil {
			c.Output = json.RawMessage("null")
		}
	}
	s.log = append(s.log, c)
}

// marshalCalls writes calls.json: the calls in the order the runner took
// them, as a JSON array, byte for byte as canon.Marshal writes it. The
// session records every input and output as canonical compact JSON (see
// canonical), so each is indented into place as it is, without being
// encoded again.
func marshalCalls(calls []Call) ([]byte, error) {
	if len(calls) == 0 {
		return canon.Marshal([]Call{})
	}
	// written in a reused buffer, then copied into one of the right size;
	// indented, the values take up to about twice their size: room is
	// made once
	size := 0
	for _, c := range calls {
		size += len(c.Tool) + len(c.Input) + len(c.Output) + len(c.Error) + 64
	}
	bp := callsBuffers.Get().(*[]byte)
	defer func() {
		if cap(*bp) <= 1<<20 {
			callsBuffers.Put(bp) // a huge list's buffer is not kept
		}
	}()
	out := slices.Grow((*bp)[:0], 2*size+8)
	defer func() { *bp = out[:0] }()
	out = append(out, "[\n"...)
	for i, c := range calls {
		if i > 0 {
			out = append(out, ",\n"...)
		}
		out = append(out, "  {\n    \"tool\": "...)
		var err error
		if out, err = canon.AppendCompact(out, c.Tool); err != nil {
			return nil, err
		}
		for _, f := range []struct {
			key   string
			value json.RawMessage
			keep  bool
		}{{"input", c.Input, true}, {"output", c.Output, len(c.Output) > 0}, {"error", c.Error, len(c.Error) > 0}} {
			if !f.keep {
				continue
			}
			out = append(append(append(out, ",\n    \""...), f.key...), "\": "...)
			if out, err = canon.AppendIndent(out, f.value, "    ", "  "); err != nil {
				return nil, fmt.Errorf("%s of call %d: %w", f.key, i+1, err)
			}
		}
		out = append(out, "\n  }"...)
	}
	out = append(out, "\n]\n"...)
	return bytes.Clone(out), nil
}

// callsBuffers are the buffers marshalCalls writes in.
var callsBuffers = sync.Pool{New: func() any { return new([]byte) }}

// canonical returns JSON as canon.Compact writes it (compact, valid UTF-8,
// line separators unescaped), and whether it could: not when data is not
// JSON, which is then returned as it is.
func canonical(data json.RawMessage) (json.RawMessage, bool) {
	if data == nil {
		return nil, false
	}
	c, err := canon.Compact(data)
	if err != nil {
		return data, false
	}
	return c, true
}

// budgetError is the tool error of a call refused because the budget of
// max tool calls is used up.
func budgetError(max int) *env.ToolError {
	return env.Errorf("max_tool_calls", "the budget of %d tool calls is used up", max)
}
