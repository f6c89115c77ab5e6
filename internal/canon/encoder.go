package canon

import (
	"bytes"
	"encoding/json"
)

// Encoder writes compact JSON as Compact does, reusing one buffer and one
// json.Encoder across values. It is not safe for concurrent use.
type Encoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

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
	e.buf.Reset()
	if err := e.enc.Encode(v); err != nil {
		return dst, err
	}
	b := bytes.TrimSuffix(e.buf.Bytes(), []byte("\n"))
	return append(dst, validUTF8(unescapeSeparators(b))...), nil
}
