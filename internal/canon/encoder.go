package canon

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"sync"

	"github.com/agent-oracle/oracle/internal/safeio"
)

// Encoder writes compact JSON as Compact does, reusing one buffer and one
// json.Encoder across values. It is not safe for concurrent use.
type Encoder struct {
	buf bytes.Buffer
	enc *json.Encoder
	// scratch holds Marshal's compact JSON between values, indented its
	// indented form, compact Compact's
	scratch, indented, compact []byte
}

// small reports whether e's buffers are small enough to keep in the pool.
func (e *Encoder) small() bool {
	const max = 64 << 10
	return e.buf.Cap() <= max && cap(e.scratch) <= max && cap(e.indented) <= max && cap(e.compact) <= max
}

// Compacted is JSON as Compact or AppendCompact wrote it. AppendCompact
// appends it as it is, without reading it again: hold in it only bytes
// that came from them.
type Compacted []byte

// MarshalJSON returns the JSON itself.
func (c Compacted) MarshalJSON() ([]byte, error) {
	if c == nil {
		return []byte("null"), nil
	}
	return c, nil
}

// encoders are the Encoders Compact reuses.
var encoders = sync.Pool{New: func() any { return NewEncoder() }}

// NewEncoder returns an Encoder.
func NewEncoder() *Encoder {
	e := &Encoder{}
	e.enc = json.NewEncoder(&e.buf)
	e.enc.SetEscapeHTML(false)
	return e
}

// AppendCompact appends the compact JSON of v to dst, byte for byte what
// Compact gives. On error dst is returned unchanged.
func (e *Encoder) AppendCompact(dst []byte, v any) ([]byte, error) {
	if out, ok := appendDirect(dst, v); ok {
		return out, nil
	}
	if x, ok := v.(json.RawMessage); ok && x != nil {
		e.buf.Reset()
		if json.Compact(&e.buf, x) == nil {
			return append(dst, validUTF8(unescapeSeparators(e.buf.Bytes()))...), nil
		}
		// the encoder's error says what is wrong
	}
	e.buf.Reset()
	if err := e.enc.Encode(v); err != nil {
		return dst, err
	}
	b := bytes.TrimSuffix(e.buf.Bytes(), []byte("\n"))
	return append(dst, validUTF8(unescapeSeparators(b))...), nil
}

// appendDirect appends the compact JSON of the values written without an
// Encoder's buffers, as the values a trace is mostly made of are: compacted
// and null JSON, strings, numbers, booleans, simple maps and the types
// canon's typed encoders write. It reports false, with dst as it was, for
// any other value.
func appendDirect(dst []byte, v any) ([]byte, bool) {
	switch x := v.(type) {
	case Compacted:
		if x == nil {
			return append(dst, "null"...), true
		}
		return append(dst, x...), true
	case json.RawMessage:
		if x == nil {
			return append(dst, "null"...), true
		}
		return dst, false
	}
	if out, ok := appendSimple(dst, v); ok {
		return out, true
	}
	return appendTyped(dst, v)
}

// plain reports whether s is written in JSON as itself between quotes:
// printable ASCII without a quote or a backslash.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// appendMap appends the JSON of a map of strings, or of a map whose values
// are strings, booleans, integers, nil or such maps, when every key and
// string is plain: keys sorted, as encoding/json writes them. It reports
// false, with dst as it was, for any other map.
func appendMap(dst []byte, m any, depth int) ([]byte, bool) {
	if depth >= maxSimpleDepth {
		return dst, false // deeper (or a cycle): left to encoding/json
	}
	switch x := m.(type) {
	case map[string]string:
		return appendObject(dst, x, depth, func(dst []byte, v string, _ int) ([]byte, bool) { return appendSimpleAt(dst, v, 0) })
	case map[string]any:
		return appendObject(dst, x, depth, appendSimpleAt)
	}
	return dst, false
}

// maxSimpleDepth bounds the nesting of the maps appendSimple writes: the
// artifacts' limit, each map being one level of JSON. Deeper maps (a cycle
// among them) go to appendTyped, which leaves them to encoding/json.
const maxSimpleDepth = safeio.MaxDepth

// appendObject appends m as a JSON object, its keys sorted, each value
// written by value; false, with dst as it was, when a key is not plain or
// value cannot write a value.
func appendObject[V any](dst []byte, m map[string]V, depth int, value func([]byte, V, int) ([]byte, bool)) ([]byte, bool) {
	if m == nil {
		return append(dst, "null"...), true
	}
	start := len(dst)
	dst = append(dst, '{')
	// the keys of a small map are sorted on the stack
	var small [16]string
	keys := small[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for i, k := range keys {
		if !plain(k) {
			return dst[:start], false
		}
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(append(append(dst, '"'), k...), '"', ':')
		var ok bool
		if dst, ok = value(dst, m[k], depth+1); !ok {
			return dst[:start], false
		}
	}
	return append(dst, '}'), true
}

// appendSimple appends a plain string, a boolean, an integer, nil or a map
// appendMap writes; false for anything else.
func appendSimple(dst []byte, v any) ([]byte, bool) { return appendSimpleAt(dst, v, 0) }

// appendSimpleAt is appendSimple of a value depth maps deep.
func appendSimpleAt(dst []byte, v any, depth int) ([]byte, bool) {
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...), true
	case string:
		if plain(v) {
			return append(append(append(dst, '"'), v...), '"'), true
		}
	case bool:
		return strconv.AppendBool(dst, v), true
	case int:
		return strconv.AppendInt(dst, int64(v), 10), true
	case int64:
		return strconv.AppendInt(dst, v, 10), true
	case map[string]string, map[string]any:
		return appendMap(dst, v, depth)
	}
	return dst, false
}
