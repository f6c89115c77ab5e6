package runner

import (
	"bytes"
	"encoding/json"
	"strconv"
	"sync"
	"time"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/internal/canon"
	"github.com/agent-oracle/oracle/internal/secret"
)

// Trace collects a rollout's events in order, as JSON Lines in one buffer.
// It is safe for concurrent use. A nil *Trace keeps nothing: the rollout's
// trace is not wanted (Config.ResultOnly).
//
// Each event is written without the secrets of the process (see
// internal/secret). The trace is bounded: past MaxTraceBytes, events are
// left out, save the runner's closing ones (agent_output, run_end,
// verifier_result), and a trace_truncated event before those says how many,
// so that a rollout that says too much still ends with its run folder
// written.
type Trace struct {
	mu    sync.Mutex
	clock func() time.Time
	// size is the bytes of the events kept; limit bounds it (but for
	// the closing events); dropped counts the events left out since the
	// last trace_truncated
	size, limit int
	dropped     int
	// buf holds the latest events; full holds the earlier ones in blocks,
	// so that a long trace is never copied to grow
	buf  []byte
	full [][]byte
	seq  int
	// pooled holds buf's first buffer, lent by traceBuffers, which Bytes
	// gives back; closed says Bytes was called: later events are dropped
	pooled *[]byte
	closed bool
}

// traceBuffers lends traces their first buffer.
var traceBuffers = sync.Pool{New: func() any {
	b := make([]byte, 0, 4096)
	return &b
}}

// traceBlock is the size from which the trace's buffer is set aside as a
// block and a new one started.
const traceBlock = 64 << 10

// MaxTraceBytes bounds a trace but for its closing events, well below
// what a reader of it takes (safeio.MaxBytes).
const MaxTraceBytes = 64 << 20

// closingEvents are the runner's last events, which a trace always holds.
var closingEvents = map[string]bool{"agent_output": true, "run_end": true, "verifier_result": true}

func newTrace(clock func() time.Time) *Trace {
	bp := traceBuffers.Get().(*[]byte)
	return &Trace{clock: clock, buf: (*bp)[:0], pooled: bp, limit: MaxTraceBytes}
}

// add appends an event of type typ; fields follow seq, type and at in the
// given order.
func (t *Trace) add(typ string, fields ...field) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return // after Bytes (an abandoned agent's event): no one reads it
	}
	closing := closingEvents[typ]
	if t.dropped > 0 && closing {
		t.write("trace_truncated", f("droppedEvents", t.dropped), f("limitBytes", t.limit))
		t.dropped = 0
	}
	start := len(t.buf)
	t.write(typ, fields...)
	if n := len(t.buf) - start; !closing && t.size+n > t.limit {
		t.buf = t.buf[:start]
		t.seq--
		t.dropped++
		return
	}
	t.size += len(t.buf) - start
	if len(t.buf) >= traceBlock {
		t.full = append(t.full, t.buf)
		t.buf = make([]byte, 0, 2*traceBlock)
	}
}

// write appends an event to t.buf, without the process's secrets; t.mu is
// held.
func (t *Trace) write(typ string, fields ...field) {
	start := len(t.buf)
	t.seq++
	t.buf = append(t.buf, `{"seq":`...)
	t.buf = strconv.AppendInt(t.buf, int64(t.seq), 10)
	t.buf = append(t.buf, `,"type":`...)
	t.writeJSON(typ)
	t.buf = append(t.buf, `,"at":`...)
	t.buf = appendStamp(t.buf, t.clock())
	for _, f := range fields {
		t.buf = append(t.buf, ',')
		t.writeJSON(f.key)
		t.buf = append(t.buf, ':')
		t.writeJSON(f.value)
	}
	t.buf = append(t.buf, "}\n"...)
	if !secret.None() {
		// (Redact gives the line itself back when it holds no secret)
		line := t.buf[start:]
		if clean := secret.Redact(line); &clean[0] != &line[0] {
			t.buf = append(t.buf[:start], clean...)
		}
	}
}

// Bytes returns the trace as JSON Lines and closes it: the events added
// afterwards are dropped.
func (t *Trace) Bytes() []byte {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	defer t.close()
	if t.full == nil {
		return bytes.Clone(t.buf)
	}
	n := len(t.buf)
	for _, b := range t.full {
		n += len(b)
	}
	out := make([]byte, 0, n)
	for _, b := range t.full {
		out = append(out, b...)
	}
	return append(out, t.buf...)
}

// close gives the first buffer back, unless it grew large, and drops the
// trace's events; t.mu is held.
func (t *Trace) close() {
	if t.closed {
		return
	}
	t.closed = true
	if t.full == nil && cap(t.buf) <= 2*traceBlock {
		*t.pooled = t.buf[:0]
		traceBuffers.Put(t.pooled)
	}
	t.buf, t.full, t.pooled = nil, nil, nil
}

type field struct {
	key   string
	value any
}

func f(key string, value any) field { return field{key, value} }

func (t *Trace) writeJSON(v any) {
	var err error
	if t.buf, err = canon.AppendCompact(t.buf, v); err != nil {
		b, _ := json.Marshal(err.Error())
		t.buf = append(t.buf, b...)
	}
}

// stampLayout is how events are stamped, in UTC.
const stampLayout = "2006-01-02T15:04:05.000Z07:00"

// appendStamp appends the JSON string of at in UTC as stampLayout writes
// it, without Format for the years 0 to 9999.
func appendStamp(b []byte, at time.Time) []byte {
	at = at.UTC()
	year, month, day := at.Date()
	if year < 0 || year > 9999 {
		return strconv.AppendQuote(b, at.Format(stampLayout))
	}
	hour, minute, second := at.Clock()
	b = append(b, '"')
	b = appendDigits(b, year, 4)
	b = append(b, '-')
	b = appendDigits(b, int(month), 2)
	b = append(b, '-')
	b = appendDigits(b, day, 2)
	b = append(b, 'T')
	b = appendDigits(b, hour, 2)
	b = append(b, ':')
	b = appendDigits(b, minute, 2)
	b = append(b, ':')
	b = appendDigits(b, second, 2)
	b = append(b, '.')
	b = appendDigits(b, at.Nanosecond()/1e6, 3)
	return append(b, 'Z', '"')
}

// appendDigits appends n, 0 <= n < 10^width, in width digits.
func appendDigits(b []byte, n, width int) []byte {
	for i := width - 1; i >= 0; i-- {
		b = append(b, 0)
	}
	for i := len(b) - 1; i >= len(b)-width; i-- {
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return b
}

// toolsCache holds the compact JSON of each environment's tool specs, the
// largest part of run_start, by environment name. The specs are compared
// with the cached ones on every use, so other specs under the same name
// are encoded again.
var toolsCache sync.Map // string → *encodedTools

type encodedTools struct {
	specs []env.ToolSpec
	json  canon.Compacted
}

// toolsJSON is the value of run_start's tools field.
func toolsJSON(name string, specs []env.ToolSpec) any {
	if v, ok := toolsCache.Load(name); ok {
		if c := v.(*encodedTools); sameSpecs(c.specs, specs) {
			return c.json
		}
	}
	data, err := canon.Compact(specs)
	if err != nil {
		return specs // the trace says what is wrong with them
	}
	kept := make([]env.ToolSpec, len(specs))
	for i, s := range specs {
		s.InputSchema = bytes.Clone(s.InputSchema)
		kept[i] = s
	}
	toolsCache.Store(name, &encodedTools{specs: kept, json: data})
	return canon.Compacted(data)
}

func sameSpecs(a, b []env.ToolSpec) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].Description != b[i].Description || a[i].ReadOnly != b[i].ReadOnly ||
			!bytes.Equal(a[i].InputSchema, b[i].InputSchema) {
			return false
		}
	}
	return true
}
