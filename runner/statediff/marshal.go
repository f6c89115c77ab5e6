package statediff

import (
	"bytes"
	"encoding/json"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/agent-oracle/oracle/internal/canon"
)

// Marshal writes the diff as state-diff.json bytes: what canon.Marshal
// writes for it, byte for byte, without reflection. A diff that the writer
// below does not vouch for (a value that is not valid JSON or has space
// around it, a string encoding/json would have escaped in a way canon
// rewrites) is handed to canon.Marshal, which also gives its error.
func (d *Diff) Marshal() ([]byte, error) {
	// written in a reused buffer, then copied into one of the right size
	bp := marshalBuffers.Get().(*[]byte)
	m := marshaler{buf: (*bp)[:0]}
	m.diff(d)
	out := append(m.buf, '\n')
	defer func() {
		if cap(out) <= maxKeptBuffer {
			*bp = out[:0]
			marshalBuffers.Put(bp)
		}
	}()
	if !m.ok || !utf8.Valid(out) || bytes.Contains(out, []byte(`\u202`)) || bytes.Contains(out, []byte(`\ufffd`)) {
		return canon.Marshal(d)
	}
	return bytes.Clone(out), nil
}

// marshalBuffers are the buffers Marshal writes in; one that grew past
// maxKeptBuffer is left to the collector.
var marshalBuffers = sync.Pool{New: func() any { return new([]byte) }}

const maxKeptBuffer = 1 << 20

type marshaler struct {
	buf    []byte
	indent []byte // the current line's indentation
	ok     bool
}

func (m *marshaler) diff(d *Diff) {
	m.ok = true
	m.open('{')
	m.key("scalars")
	if d.Scalars == nil {
		m.buf = append(m.buf, "null"...)
	} else {
		m.open('[')
		for i := range d.Scalars {
			m.item(i)
			m.change(&d.Scalars[i])
		}
		m.close(']', len(d.Scalars))
	}
	m.next()
	m.key("collections")
	if d.Collections == nil {
		m.buf = append(m.buf, "null"...)
	} else {
		names := make([]string, 0, len(d.Collections))
		for name := range d.Collections {
			names = append(names, name)
		}
		slices.Sort(names)
		m.open('{')
		for i, name := range names {
			m.item(i)
			m.key(name)
			m.collection(d.Collections[name])
		}
		m.close('}', len(names))
	}
	m.close('}', 2)
}

func (m *marshaler) collection(c *Collection) {
	if c == nil {
		m.buf = append(m.buf, "null"...)
		return
	}
	m.open('{')
	for k, list := range [][]Member{c.Added, c.Removed} {
		m.key([]string{"added", "removed"}[k])
		if list == nil {
			m.buf = append(m.buf, "null"...)
		} else {
			m.open('[')
			for i := range list {
				m.item(i)
				m.open('{')
				m.key("id")
				m.string(list[i].ID)
				m.next()
				m.key("value")
				m.value(list[i].Value, true)
				m.close('}', 2)
			}
			m.close(']', len(list))
		}
		m.next()
	}
	m.key("changed")
	if c.Changed == nil {
		m.buf = append(m.buf, "null"...)
	} else {
		m.open('[')
		for i := range c.Changed {
			m.item(i)
			m.open('{')
			m.key("id")
			m.string(c.Changed[i].ID)
			m.next()
			m.key("changes")
			if changes := c.Changed[i].Changes; changes == nil {
				m.buf = append(m.buf, "null"...)
			} else {
				m.open('[')
				for j := range changes {
					m.item(j)
					m.change(&changes[j])
				}
				m.close(']', len(changes))
			}
			m.close('}', 2)
		}
		m.close(']', len(c.Changed))
	}
	m.close('}', 3)
}

func (m *marshaler) change(c *Change) {
	m.open('{')
	n := 0
	field := func(name string) {
		if n > 0 {
			m.next()
		}
		n++
		m.key(name)
	}
	if c.Field != "" {
		field("field")
		m.string(c.Field)
	}
	if c.Path != "" {
		field("path")
		m.string(c.Path)
	}
	field("op")
	m.string(string(c.Op))
	if len(c.From) > 0 {
		field("from")
		m.value(c.From, false)
	}
	if len(c.To) > 0 {
		field("to")
		m.value(c.To, false)
	}
	m.close('}', n)
}

// open starts an object or array; its first member or item follows.
func (m *marshaler) open(c byte) {
	m.buf = append(m.buf, c)
	m.indent = append(m.indent, ' ', ' ')
	m.buf = append(append(m.buf, '\n'), m.indent...)
}

// item starts the i-th member or item after the first.
func (m *marshaler) item(i int) {
	if i > 0 {
		m.next()
	}
}

func (m *marshaler) next() {
	m.buf = append(append(m.buf, ",\n"...), m.indent...)
}

// close ends an object or array of n members or items; one of none is
// written {} or [].
func (m *marshaler) close(c byte, n int) {
	m.indent = m.indent[:len(m.indent)-2]
	if n == 0 {
		m.buf = append(m.buf[:len(m.buf)-len(m.indent)-3], c) // back to the opener
		return
	}
	m.buf = append(append(append(m.buf, '\n'), m.indent...), c)
}

func (m *marshaler) key(k string) {
	m.string(k)
	m.buf = append(m.buf, ':', ' ')
}

// string writes s as encoding/json does without HTML escaping, when it
// needs no escape; otherwise as canon writes it.
func (m *marshaler) string(s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' {
			m.slowString(s)
			return
		}
	}
	if !utf8.ValidString(s) {
		m.slowString(s)
		return
	}
	m.buf = append(append(append(m.buf, '"'), s...), '"')
}

func (m *marshaler) slowString(s string) {
	b, err := canon.Compact(s)
	if err != nil {
		m.ok = false
		return
	}
	m.buf = append(m.buf, b...)
}

// value writes a raw JSON value at the current indentation; a nil one is
// null where null is set.
func (m *marshaler) value(v json.RawMessage, null bool) {
	if len(v) == 0 {
		if null && v == nil {
			m.buf = append(m.buf, "null"...)
		} else {
			m.ok = false
		}
		return
	}
	if end, err := scanValue(v, 0, 0); err != nil || end != len(v) {
		m.ok = false // not valid, or with space around it
		return
	}
	var err error
	if m.buf, err = canon.AppendIndent(m.buf, v, string(m.indent), "  "); err != nil {
		m.ok = false
	}
}
