package host

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/internal/canon"
	"github.com/agent-oracle/oracle/internal/safeio"
)

// Protocol is the version of the environment protocol this package speaks
// (docs/environment-protocol.md), which a host names in its hello.
const Protocol = 1

// message is any message a host sends, one JSON object a line. Which
// fields a message carries depends on its type.
type message struct {
	Type string `json:"type"`
	ID   int64  `json:"id"`

	// hello
	Protocol  *int               `json:"protocol"`
	Name      string             `json:"name"`
	Tools     []wireTool         `json:"tools"`
	Verifiers []env.VerifierInfo `json:"verifiers"`
	Tasks     []json.RawMessage  `json:"tasks"`
	Agents    bool               `json:"agents"`

	// opened, state
	State json.RawMessage `json:"state"`
	// opened: the initial state is the one last sent for the task
	Same bool `json:"same"`
	// result, agent_output, tool_call
	Output  json.RawMessage `json:"output"`
	IsError bool            `json:"isError"`
	// verified
	Checks []wireCheck `json:"checks"`
	// error
	Error *wireError `json:"error"`
	// tool_call (from an agent)
	Call  int64           `json:"call"`
	Tool  string          `json:"tool"`
	Input json.RawMessage `json:"input"`
}

// wireTool is a tool as a hello describes it.
type wireTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	ReadOnly    bool            `json:"readOnly"`
}

// wireCheck is a check as a verified message carries it. The fields are
// read strictly (see checkResult): a verifier that returns a check without
// a boolean passed has a bug, which must not read as a pass or a fail.
type wireCheck struct {
	Label    json.RawMessage `json:"label"`
	Passed   json.RawMessage `json:"passed"`
	Detail   json.RawMessage `json:"detail"`
	Required json.RawMessage `json:"required"`
	Kind     json.RawMessage `json:"kind"`
}

// wireError is the error of an error message.
type wireError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Error is an error a host answered a request with.
type Error struct {
	Code    string // bad_request, no_world, open_failed, verifier_threw, …
	Message string
}

func (e *Error) Error() string { return e.Message }

// parseMessage reads one line of a host's stdout. n is the line's number,
// for errors.
func parseMessage(line []byte, n int) (*message, error) {
	if !utf8.Valid(line) {
		return nil, fmt.Errorf("line %d is not UTF-8: %s", n, excerpt(line))
	}
	if err := safeio.CheckLimits(line); err != nil {
		return nil, fmt.Errorf("line %d %v", n, err)
	}
	if m, ok := fastMessage(line); ok {
		return m, nil
	}
	m := &message{}
	if err := json.Unmarshal(line, m); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			return nil, fmt.Errorf("line %d is not JSON: %s; a host writes only protocol messages on stdout (logs go to stderr)", n, excerpt(line))
		}
		return nil, fmt.Errorf("line %d is not a protocol message (%v): %s", n, err, excerpt(line))
	}
	if m.Type == "" {
		return nil, fmt.Errorf("line %d has no type: %s; every message is an object with a type", n, excerpt(line))
	}
	return m, nil
}

// fastMessage reads the large messages as the hosts that ship with oracle
// write them, their payload last: {"type":"state","id":N,"state":…},
// {"type":"opened","id":N,"state":…} and
// {"type":"result","id":N,"isError":B,"output":…}. The payload is checked
// once (json.Valid) rather than scanned twice by a decoder. Any other line,
// or one whose payload is not valid JSON, goes the general way.
func fastMessage(line []byte) (*message, bool) {
	m := &message{}
	var rest []byte
	for _, typ := range []string{"state", "result", "opened"} {
		if r, ok := bytes.CutPrefix(line, []byte(`{"type":"`+typ+`","id":`)); ok {
			m.Type, rest = typ, r
			break
		}
	}
	if m.Type == "" {
		return nil, false
	}
	n := 0
	for n < len(rest) && n < 18 && rest[n] >= '0' && rest[n] <= '9' {
		n++
	}
	if n == 0 || rest[0] == '0' && n > 1 {
		return nil, false
	}
	m.ID, _ = strconv.ParseInt(string(rest[:n]), 10, 64)
	rest = rest[n:]
	var key string
	switch {
	case m.Type != "result":
		key = `,"state":`
	case bytes.HasPrefix(rest, []byte(`,"isError":true,`)):
		m.IsError, key = true, `,"isError":true,"output":`
	default:
		key = `,"isError":false,"output":`
	}
	payload, ok := bytes.CutPrefix(rest, []byte(key))
	if !ok || len(payload) < 2 || payload[len(payload)-1] != '}' {
		return nil, false
	}
	payload = payload[:len(payload)-1]
	if !json.Valid(payload) {
		return nil, false
	}
	if m.Type == "result" {
		m.Output = payload
	} else {
		m.State = payload
	}
	return m, true
}

// excerpt quotes the start of a line for an error.
func excerpt(b []byte) string {
	const shown = 80
	if len(b) <= shown {
		return strconv.Quote(string(b))
	}
	cut := shown
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return strconv.Quote(string(b[:cut])) + "…"
}

// request is a request to a host: its type, then the fields given in
// order, each a name and a value marshalled as canon.Compact does (a
// json.RawMessage as it is).
func request(typ string, id int64, fields ...any) ([]byte, error) {
	b := make([]byte, 0, 128)
	b = append(b, `{"type":`...)
	b = strconv.AppendQuote(b, typ)
	b = append(b, `,"id":`...)
	b = strconv.AppendInt(b, id, 10)
	for i := 0; i+1 < len(fields); i += 2 {
		b = append(b, ',')
		b = strconv.AppendQuote(b, fields[i].(string))
		b = append(b, ':')
		var err error
		switch v := fields[i+1].(type) {
		case json.RawMessage:
			if len(v) == 0 {
				v = json.RawMessage("null")
			}
			b = appendCompact(b, v)
		case int64:
			b = strconv.AppendInt(b, v, 10)
		default:
			if b, err = canon.AppendCompact(b, v); err != nil {
				return nil, fmt.Errorf("%s request: %w", typ, err)
			}
		}
	}
	return append(b, '}', '\n'), nil
}

// appendCompact appends JSON without line breaks: a message is one line.
func appendCompact(b []byte, v json.RawMessage) []byte {
	if !bytes.ContainsAny(v, "\r\n") {
		return append(b, v...)
	}
	var buf bytes.Buffer
	if json.Compact(&buf, v) == nil {
		return append(b, buf.Bytes()...)
	}
	return append(b, bytes.ReplaceAll(bytes.ReplaceAll(v, []byte("\n"), []byte(" ")), []byte("\r"), []byte(" "))...)
}

// checkResults reads the checks of a verified message strictly: a label
// and a passed of the right type, a kind oracle knows.
func checkResults(verifier string, wire []wireCheck) ([]env.CheckResult, error) {
	out := make([]env.CheckResult, 0, len(wire))
	for i, w := range wire {
		c, err := checkResult(w)
		if err != nil {
			return nil, fmt.Errorf("verifier %s: check %d %v", verifier, i+1, err)
		}
		out = append(out, c)
	}
	return out, nil
}

func checkResult(w wireCheck) (env.CheckResult, error) {
	var c env.CheckResult
	if err := strict(w.Label, &c.Label, true); err != nil {
		return c, fmt.Errorf("has no label: it is %s, not a string", err)
	}
	if err := strict(w.Passed, &c.Passed, true); err != nil {
		return c, fmt.Errorf("(%q) has no passed: it is %s, not a boolean", c.Label, err)
	}
	if err := strict(w.Detail, &c.Detail, false); err != nil {
		return c, fmt.Errorf("(%q) has a detail that is %s, not a string", c.Label, err)
	}
	var required bool
	if err := strict(w.Required, &required, false); err != nil {
		return c, fmt.Errorf("(%q) has a required that is %s, not a boolean", c.Label, err)
	}
	var kind string
	if err := strict(w.Kind, &kind, false); err != nil {
		return c, fmt.Errorf("(%q) has a kind that is %s, not a string", c.Label, err)
	}
	switch env.Kind(kind) {
	case "":
		c.Kind = env.OptionalKind
		if required {
			c.Kind = env.Required
		}
	case env.Required, env.OptionalKind, env.Forbidden, env.Coverage:
		c.Kind = env.Kind(kind)
	default:
		return c, fmt.Errorf("(%q) has kind %q, which is not required, optional, forbidden or coverage", c.Label, kind)
	}
	c.Required = c.Kind == env.Required || c.Kind == env.Forbidden
	return c, nil
}

// strict decodes raw into v; JSON null is absent, which is an error when
// the value is needed. The error names what raw is instead: "missing",
// "a string", "a number", …
func strict(raw json.RawMessage, v any, needed bool) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		if needed {
			return errors.New("missing")
		}
		return nil
	}
	if json.Unmarshal(raw, v) == nil {
		return nil
	}
	switch raw[0] {
	case '"':
		return errors.New("a string")
	case '{':
		return errors.New("an object")
	case '[':
		return errors.New("an array")
	case 't', 'f':
		return errors.New("a boolean")
	}
	return errors.New("a number")
}

// toolError turns the output of a result with isError into the error the
// agent reads: {code, message, details} as a tool of Go returns it; an
// output of another shape is kept whole in details.
func toolError(out json.RawMessage) *env.ToolError {
	var te struct {
		Code    *string         `json:"code"`
		Message *string         `json:"message"`
		Details json.RawMessage `json:"details"`
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	if dec.Decode(&te) == nil && te.Code != nil && te.Message != nil {
		e := &env.ToolError{Code: *te.Code, Message: *te.Message}
		if len(te.Details) > 0 && string(te.Details) != "null" {
			e.Details = details(te.Details)
		}
		return e
	}
	var text string
	if json.Unmarshal(out, &text) == nil {
		return &env.ToolError{Code: "tool_error", Message: text}
	}
	return &env.ToolError{Code: "tool_error", Message: "the tool failed", Details: map[string]any{"output": json.RawMessage(out)}}
}

// details reads a ToolError's details: an object as it is, any other value
// under "value".
func details(raw json.RawMessage) map[string]any {
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&m) == nil && m != nil {
		return m
	}
	return map[string]any{"value": json.RawMessage(raw)}
}
