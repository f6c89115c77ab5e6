package runner

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/internal/canon"
	"github.com/agent-oracle/oracle/internal/secret"
)

// The messages of the exec protocol (docs/protocol.md), one JSON object a
// line. Runner → agent: start, result, stop. Agent → runner: call, output.

// line is one line of the agent's stdout, or the error that ended them.
type line struct {
	n    int // 1-based
	data []byte
	err  error
}

// readLines reads the agent's stdout a line at a time and sends each on
// lines, until an error (io.EOF at the end) or until quit is closed. Memory
// is bounded by limit: a longer line is an error and reading stops there.
func readLines(r io.Reader, limit int, lines chan<- line, quit <-chan struct{}) {
	sc := bufio.NewScanner(r)
	// limit+1: the buffer holds a line of limit bytes and its newline
	sc.Buffer(make([]byte, 0, min(64<<10, limit+1)), limit+1)
	for n := 1; ; n++ {
		l := line{n: n}
		ok := sc.Scan()
		switch {
		case ok && len(sc.Bytes()) <= limit:
			// a last line without a newline is a line too; EOF comes next.
			// The scanner reuses its buffer: the line is copied.
			l.data = bytes.Clone(sc.Bytes())
		case !ok && sc.Err() == nil:
			l.err = io.EOF
		case ok, errors.Is(sc.Err(), bufio.ErrTooLong):
			l.err = fmt.Errorf("line %d is longer than %d bytes; an agent writes one JSON message a line (raise the limit with ExecConfig.MaxLineBytes)", n, limit)
		default:
			l.err = fmt.Errorf("read line %d of the agent's stdout: %w", n, sc.Err())
		}
		select {
		case lines <- l:
		case <-quit:
			return
		}
		if l.err != nil {
			return
		}
	}
}

// message is a message from the agent.
type message struct {
	Type   string          `json:"type"`
	ID     json.RawMessage `json:"id"`
	Tool   string          `json:"tool"`
	Input  json.RawMessage `json:"input"`
	Output json.RawMessage `json:"output"`
}

// parseMessage parses and checks one line. A blank line is a message with
// no type.
func parseMessage(l line) (message, error) {
	var m message
	data := bytes.TrimSpace(l.data)
	if len(data) == 0 {
		return m, nil
	}
	if err := json.Unmarshal(data, &m); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			return m, fmt.Errorf("line %d is not JSON: %v: %s; an agent writes only protocol messages on stdout (logs go to stderr)", l.n, err, excerpt(data))
		case errors.As(err, &typ) && typ.Field == "":
			return m, fmt.Errorf("line %d is a JSON %s, not an object: %s; every message is an object with a type", l.n, typ.Value, excerpt(data))
		}
		return m, fmt.Errorf("line %d is not a protocol message: %v", l.n, err)
	}
	switch m.Type {
	case "call":
		if !validID(m.ID) {
			return m, fmt.Errorf("line %d: call has no id; a call is {\"type\":\"call\",\"id\":\"c1\",\"tool\":…,\"input\":{…}}", l.n)
		}
		if m.Tool == "" {
			return m, fmt.Errorf("line %d: call %s has no tool; a call is {\"type\":\"call\",\"id\":\"c1\",\"tool\":…,\"input\":{…}}", l.n, m.ID)
		}
	case "output":
	case "":
		return m, fmt.Errorf("line %d has no type: %s; an agent sends {\"type\":\"call\",…} or {\"type\":\"output\",…}", l.n, excerpt(data))
	default:
		return m, fmt.Errorf("line %d: unknown message type %q; an agent sends call or output", l.n, m.Type)
	}
	return m, nil
}

// validID reports whether id is a non-empty string or a number.
func validID(id json.RawMessage) bool {
	if len(id) == 0 {
		return false
	}
	switch c := id[0]; {
	case c == '"':
		return len(id) > 2
	case c == '-' || c >= '0' && c <= '9':
		return true
	}
	return false
}

// input is the call's input, nil when absent or null.
func (m message) input() any {
	if len(m.Input) == 0 || string(m.Input) == "null" {
		return nil
	}
	return m.Input
}

// output is the agent's final output, nil when absent or null.
func (m message) output() json.RawMessage {
	if len(m.Output) == 0 || string(m.Output) == "null" {
		return nil
	}
	return m.Output
}

// startLine is the start message.
func startLine(in env.AgentInput) ([]byte, error) {
	tools := in.Tools
	if tools == nil {
		tools = []env.ToolSpec{}
	}
	b, err := canon.Compact(struct {
		Type  string         `json:"type"`
		Task  string         `json:"task"`
		Tools []env.ToolSpec `json:"tools"`
	}{"start", in.Task, tools})
	if err != nil {
		return nil, fmt.Errorf("exec agent: start message: %w", err)
	}
	return append(b, '\n'), nil
}

// resultLine is the result message answering call id.
func resultLine(id json.RawMessage, r env.ToolResult) []byte {
	out := r.Output
	if len(out) == 0 {
		out = json.RawMessage("null")
	}
	if bytes.ContainsAny(out, "\r\n") {
		var buf bytes.Buffer
		if json.Compact(&buf, out) == nil {
			out = buf.Bytes()
		}
	}
	b := make([]byte, 0, len(out)+len(id)+48)
	b = append(b, `{"type":"result","id":`...)
	b = append(b, id...)
	b = append(b, `,"output":`...)
	b = append(b, out...)
	if r.IsError {
		b = append(b, `,"isError":true}`...)
	} else {
		b = append(b, `,"isError":false}`...)
	}
	return append(b, '\n')
}

// stopLine is the stop message.
func stopLine(reason string) []byte {
	b, _ := canon.Compact(struct {
		Type   string `json:"type"`
		Reason string `json:"reason"`
	}{"stop", reason})
	return append(b, '\n')
}

// excerpt quotes the start of a line for an error message.
func excerpt(b []byte) string {
	const shown = 60
	if len(b) <= shown {
		return fmt.Sprintf("%q", b)
	}
	cut := shown
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return fmt.Sprintf("%q…", b[:cut])
}

// oneLine is the end of text, at most max bytes, with its lines joined by
// " | ", for a one-line error message.
func oneLine(text string, max int) string {
	text = strings.TrimSpace(text)
	if len(text) > max {
		cut := len(text) - max
		for cut < len(text) && !utf8.RuneStart(text[cut]) {
			cut++
		}
		text = "…" + text[cut:]
	}
	var parts []string
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, " | ")
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu    sync.Mutex
	max   int
	buf   []byte
	total int64
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.total += int64(len(p))
	if len(p) >= t.max {
		t.buf = append(t.buf[:0], p[len(p)-t.max:]...)
		return len(p), nil
	}
	if over := len(t.buf) + len(p) - t.max; over > 0 {
		t.buf = t.buf[:copy(t.buf, t.buf[over:])]
	}
	t.buf = append(t.buf, p...)
	return len(p), nil
}

// snapshot returns the kept text, valid UTF-8 from a rune start, with the
// process's secrets (internal/secret) replaced: whatever the agent said
// reaches errors, reports and traces as artifacts do. With it, the total
// number of bytes written and how many of them were dropped.
func (t *tailBuffer) snapshot() (text string, total, dropped int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf
	if int64(len(b)) < t.total {
		for len(b) > 0 && !utf8.RuneStart(b[0]) {
			b = b[1:]
		}
	}
	return secret.String(strings.ToValidUTF8(string(b), "\uFFFD")), t.total, t.total - int64(len(b))
}
