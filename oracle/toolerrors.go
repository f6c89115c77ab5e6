package oracle

import (
	"bufio"
	"bytes"
	"encoding/json"
)

// ToolError is a tool call of a fresh run that returned an error, as its
// trace records it.
type ToolError struct {
	Tool    string `json:"tool"`
	Code    string `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
}

// maxToolErrors bounds the tool errors a case report lists.
const maxToolErrors = 50

// toolErrorsOf reads the tool errors from a trace.jsonl: each tool_result
// event with isError set, its output's code and message. Lines that are not
// such events are skipped.
func toolErrorsOf(trace []byte) []ToolError {
	var out []ToolError
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
		te := ToolError{Tool: ev.Tool}
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
