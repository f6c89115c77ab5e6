package runner

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzProtocolLines feeds arbitrary agent stdout through the line reader and
// the message parser: nothing panics, no line read is longer than the limit,
// every error is one line, and what parses as a call has an id and a tool.
func FuzzProtocolLines(f *testing.F) {
	for _, seed := range []string{
		`{"type":"call","id":"c1","tool":"list_users","input":{}}` + "\n" + `{"type":"output","output":"done"}` + "\n",
		`{"type":"call","id":7,"tool":"x"}`,
		"not json\n",
		"[1,2]\n{\"type\":\"nope\"}\n",
		"\n\n   \n",
		`{"type":"call","id":"","tool":"x"}` + "\n",
		`{"type":"call","id":"c1"}` + "\r\n",
		strings.Repeat("x", 300) + "\n",
		"{\"type\":\"output\",\"output\":\"\u2028\"}",
	} {
		f.Add([]byte(seed))
	}
	const max = 256
	f.Fuzz(func(t *testing.T, data []byte) {
		lines := make(chan line, 64)
		quit := make(chan struct{})
		go readLines(bytes.NewReader(data), max, lines, quit)
		defer close(quit)
		for l := range lines {
			if l.err != nil {
				if strings.Contains(l.err.Error(), "\n") {
					t.Fatalf("error spans lines: %q", l.err)
				}
				return
			}
			if len(bytes.TrimSuffix(bytes.TrimSuffix(l.data, []byte("\n")), []byte("\r"))) > max {
				t.Fatalf("line %d has %d bytes, over the limit %d", l.n, len(l.data), max)
			}
			m, err := parseMessage(l)
			if err != nil {
				if strings.Contains(err.Error(), "\n") {
					t.Fatalf("error spans lines: %q", err)
				}
				continue
			}
			if m.Type == "call" && (!validID(m.ID) || m.Tool == "") {
				t.Fatalf("accepted a call without id or tool: %q", l.data)
			}
		}
	})
}

// FuzzParseTrace checks the trace reader of replay: nothing panics, errors
// name the file, and every call it accepts names a tool.
func FuzzParseTrace(f *testing.F) {
	f.Add([]byte(`{"seq":1,"type":"run_start","runId":"r","environment":"crm","task":{"id":"TASK-001"}}` + "\n" +
		`{"seq":2,"type":"tool_call","callId":1,"tool":"list_users","input":{}}` + "\n" +
		`{"seq":3,"type":"agent_output","output":"done"}` + "\n"))
	f.Add([]byte(`[{"seq":2,"type":"tool_call","callId":1,"tool":"get","input":{"id":"X"}}]`))
	f.Add([]byte("garbage\n"))
	f.Add([]byte(`[`))
	f.Add([]byte(`{"type":"tool_call"}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rec, err := ParseTrace("trace.jsonl", data)
		if err != nil {
			if !strings.Contains(err.Error(), "trace.jsonl") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for i, c := range rec.Script.Calls {
			if c.Tool == "" {
				t.Fatalf("call %d has no tool", i+1)
			}
		}
	})
}
