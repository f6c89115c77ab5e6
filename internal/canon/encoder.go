package canon

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"sync"
)

// Encoder writes compact JSON as Compact does, reusing one buffer and one
// json.Encoder across values. It is not safe for concurrent use.
type Encoder struct {
	buf bytes.Buffer
	enc *json.Encoder
	// scratch holds Marshal's compact JSON between values
	scratch []byte
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
	// the values a trace is mostly made of go without reflection
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case Compacted:
		if x == nil {
			return append(dst, "null"...), nil
		}
		return append(dst, x...), nil
	case string:
		if plain(x) {
			return append(append(append(dst, '"'), x...), '"'), nil
		}
	case bool:
		return strconv.AppendBool(dst, x), nil
	case int:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(dst, x, 10), nil
	case map[string]string, map[string]any:
		if out, ok := appendMap(dst, x); ok {
			return out, nil
		}
	case json.RawMessage:
		if x == nil {
			return append(dst, "null"...), nil
		}
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
func appendMap(dst []byte, m any) ([]byte, bool) {
	start := len(dst)
	var keys []string
	switch x := m.(type) {
	case map[string]string:
		if x == nil {
			return append(dst, "null"...), true
		}
		keys = make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		dst = append(dst, '{')
		for i, k := range keys {
			v := x[k]
			if !plain(k) || !plain(v) {
				return dst[:start], false
			}
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(append(append(dst, '"'), k...), '"', ':', '"')
			dst = append(append(dst, v...), '"')
		}
		return append(dst, '}'), true
	case map[string]any:
		if x == nil {
			return append(dst, "null"...), true
		}
		keys = make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		dst = append(dst, '{')
		for i, k := range keys {
			if !plain(k) {
				return dst[:start], false
			}
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(append(append(dst, '"'), k...), '"', ':')
			var ok bool
			switch v := x[k].(type) {
			case nil:
				dst, ok = append(dst, "null"...), true
			case string:
				if ok = plain(v); ok {
					dst = append(append(append(dst, '"'), v...), '"')
				}
			case bool:
				dst, ok = strconv.AppendBool(dst, v), true
			case int:
				dst, ok = strconv.AppendInt(dst, int64(v), 10), true
			case int64:
				dst, ok = strconv.AppendInt(dst, v, 10), true
			case map[string]string, map[string]any:
				dst, ok = appendMap(dst, v)
			}
			if !ok {
				return dst[:start], false
			}
		}
		return append(dst, '}'), true
	}
	return dst, false
}
