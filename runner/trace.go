package runner

import (
	"bytes"
	"encoding/json"
	"strconv"
	"sync"
	"time"

	"github.com/agent-oracle/oracle/internal/canon"
)

// Trace collects a rollout's events in order, as JSON Lines in one buffer.
// It is safe for concurrent use. A nil *Trace keeps nothing: the rollout's
// trace is not wanted (Config.ResultOnly).
type Trace struct {
	mu    sync.Mutex
	clock func() time.Time
	buf   []byte
	enc   *canon.Encoder
	seq   int
}

func newTrace(clock func() time.Time) *Trace {
	return &Trace{clock: clock, enc: canon.NewEncoder(), buf: make([]byte, 0, 4096)}
}

// add appends an event of type typ; fields follow seq, type and at in the
// given order.
func (t *Trace) add(typ string, fields ...field) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.seq++
	t.buf = append(t.buf, `{"seq":`...)
	t.buf = strconv.AppendInt(t.buf, int64(t.seq), 10)
	t.buf = append(t.buf, `,"type":`...)
	t.writeJSON(typ)
	t.buf = append(t.buf, `,"at":`...)
	t.writeJSON(t.clock().UTC().Format("2006-01-02T15:04:05.000Z07:00"))
	for _, f := range fields {
		t.buf = append(t.buf, ',')
		t.writeJSON(f.key)
		t.buf = append(t.buf, ':')
		t.writeJSON(f.value)
	}
	t.buf = append(t.buf, "}\n"...)
}

// Bytes returns the trace as JSON Lines.
func (t *Trace) Bytes() []byte {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return bytes.Clone(t.buf)
}

type field struct {
	key   string
	value any
}

func f(key string, value any) field { return field{key, value} }

func (t *Trace) writeJSON(v any) {
	var err error
	if t.buf, err = t.enc.AppendCompact(t.buf, v); err != nil {
		b, _ := json.Marshal(err.Error())
		t.buf = append(t.buf, b...)
	}
}
