package change

import (
	"bufio"
	"bytes"
	"encoding/json"

	"github.com/agent-oracle/oracle/internal/canon"
)

// FailedCall is a tool call that returned an error, as calls.json or the
// trace records it. Call is the call's number (1-based) in its calls.json,
// 0 when it was read from a trace.
type FailedCall struct {
	Call    int    `json:"call,omitempty"`
	Tool    string `json:"tool"`
	Code    string `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
}

// maxToolErrors bounds the tool errors a case report lists.
const maxToolErrors = 50

// ToolErrorsOf reads the tool errors from a trace.jsonl: each tool_result
// event with isError set, its output's code and message. Lines that are not
// such events are skipped.
func ToolErrorsOf(trace []byte) []FailedCall {
	var out []FailedCall
	sc := bufio.NewScanner(bytes.NewReader(trace))
	sc.Buffer(make([]byte, 0, 64<<10), len(trace)+1)
	for sc.Scan() && len(out) < maxToolErrors {
		var ev struct {
			Type    string          `json:"type"`
			Tool    string          `json:"tool"`
			IsError bool            `json:"isError"`
			Output  json.RawMessage `json:"output"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Type != "tool_result" || !ev.IsError {
			continue
		}
		te := FailedCall{Tool: ev.Tool}
		var body struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		}
		if json.Unmarshal(ev.Output, &body) == nil {
			te.Code, te.Message = body.Code, body.Message
		} else {
			te.Message = string(ev.Output)
		}
		out = append(out, te)
	}
	return out
}

// CallErrorChanges compares the tool errors of two calls.json texts: the
// calls are aligned as a sequence (alignCalls, as the calls.json diff does)
// and a fresh call's error is new when its matched baseline call did not
// fail, failed differently or is absent; a baseline call's error is gone
// when its fresh counterpart no longer fails that way. ok is false when a
// text is not a calls.json.
func CallErrorChanges(old, fresh []byte) (added, gone []FailedCall, ok bool) {
	a, okA := parseCalls(old)
	b, okB := parseCalls(fresh)
	if !okA || !okB {
		return nil, nil, false
	}
	errA, errB := make([][]byte, len(a)), make([][]byte, len(b))
	for i, c := range a {
		errA[i] = callError(c.raw)
	}
	for j, c := range b {
		errB[j] = callError(c.raw)
	}
	for _, st := range alignCalls(a, b) {
		var ea, eb []byte
		if st.i >= 0 {
			ea = errA[st.i]
		}
		if st.j >= 0 {
			eb = errB[st.j]
		}
		if bytes.Equal(ea, eb) {
			continue
		}
		if eb != nil && len(added) < maxToolErrors {
			added = append(added, toolErrorOf(b[st.j].tool, st.j, eb))
		}
		if ea != nil && len(gone) < maxToolErrors {
			gone = append(gone, toolErrorOf(a[st.i].tool, st.i, ea))
		}
	}
	return added, gone, true
}

// callError is the canonical bytes of a call's error, nil when it has none.
func callError(raw json.RawMessage) []byte {
	var c struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(raw, &c) != nil || len(c.Error) == 0 || string(c.Error) == "null" {
		return nil
	}
	v, err := canon.Decode(c.Error)
	if err != nil {
		return c.Error
	}
	out, err := canon.Compact(v)
	if err != nil {
		return c.Error
	}
	return out
}

// toolErrorOf is the error of call number i (0-based) of tool.
func toolErrorOf(tool string, i int, errJSON []byte) FailedCall {
	te := FailedCall{Tool: tool, Call: i + 1}
	var body struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}
	if json.Unmarshal(errJSON, &body) == nil && (body.Code != "" || body.Message != "") {
		te.Code, te.Message = body.Code, body.Message
	} else {
		te.Message = string(errJSON)
	}
	return te
}
