package runner

import (
	"bytes"
	"encoding/json"
	"strconv"
	"sync"
	"time"

	"github.com/agent-oracle/oracle/internal/canon"
)

// Event is one line of trace.jsonl. Fields beyond seq, type and at depend on
// the type, as in the seed schema: run_start, tool_call, tool_result,
// agent_output, agent_stderr, run_end, verifier_result.
type Event map[string]any

// Trace collects a rollout's events in order. It is safe for concurrent use.
type Trace struct {
	mu     sync.Mutex
	clock  func() time.Time
	events [][]byte
	seq    int
}

func newTrace(clock func() time.Time) *Trace { return &Trace{clock: clock} }

// add appends an event of type typ; fields follow seq, type and at in the
// given order.
func (t *Trace) add(typ string, fields ...field) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.seq++
	var buf bytes.Buffer
	buf.WriteString(`{"seq":`)
	buf.WriteString(strconv.Itoa(t.seq))
	buf.WriteString(`,"type":`)
	writeJSON(&buf, typ)
	buf.WriteString(`,"at":`)
	writeJSON(&buf, t.clock().UTC().Format("2006-01-02T15:04:05.000Z07:00"))
	for _, f := range fields {
		buf.WriteByte(',')
		writeJSON(&buf, f.key)
		buf.WriteByte(':')
		writeJSON(&buf, f.value)
	}
	buf.WriteByte('}')
	t.events = append(t.events, buf.Bytes())
}

// Bytes returns the trace as JSON Lines.
func (t *Trace) Bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	var buf bytes.Buffer
	for _, e := range t.events {
		buf.Write(e)
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

type field struct {
	key   string
	value any
}

func f(key string, value any) field { return field{key, value} }

func writeJSON(buf *bytes.Buffer, v any) {
	b, err := canon.Compact(v)
	if err != nil {
		b, _ = json.Marshal(err.Error())
	}
	buf.Write(b)
}
