// Package canon writes JSON the way the artifacts need it: two-space
// indentation, UTF-8 without HTML escaping, a trailing newline, and numbers
// exactly as they were written in the data. The bytes match what
// JSON.stringify(x, null, 2) + "\n" gives for the same value, so artifacts
// written by oracle and by the original TypeScript runner compare byte for byte.
// What it writes is always valid UTF-8: invalid bytes, even inside a
// json.RawMessage taken verbatim from an agent, become U+FFFD, one for each
// byte, as encoding/json does for Go strings.
package canon

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"unicode/utf8"
)

// Marshal encodes v as indented JSON followed by a newline.
func Marshal(v any) ([]byte, error) {
	// the compact JSON, indented: what json.Encoder does with SetIndent,
	// with canon's compact form (whose strings are already final) and
	// reused buffers
	enc := encoders.Get().(*Encoder)
	defer func() {
		if enc.small() {
			encoders.Put(enc) // a huge value's buffers are not kept
		}
	}()
	compact, err := enc.AppendCompact(enc.scratch[:0], v)
	if err != nil {
		return nil, err
	}
	enc.scratch = compact
	// indented in a reused buffer, then copied into one of the right size
	indented, err := AppendIndent(enc.indented[:0], compact, "", "  ")
	if err != nil {
		return nil, err
	}
	enc.indented = indented
	out := make([]byte, len(indented)+1)
	copy(out, indented)
	out[len(indented)] = '\n'
	return out, nil
}

// Compact encodes v on one line without HTML escaping and without a newline,
// as JSON.stringify(x) would.
func Compact(v any) ([]byte, error) {
	// written in a reused buffer, then copied into one of the right size
	enc := encoders.Get().(*Encoder)
	defer func() {
		if enc.small() {
			encoders.Put(enc) // a huge value's buffers are not kept
		}
	}()
	buf, err := enc.AppendCompact(enc.compact[:0], v)
	if err != nil {
		return nil, err
	}
	enc.compact = buf
	out := make([]byte, len(buf))
	copy(out, buf)
	return out, nil
}

// AppendCompact appends what Compact gives for v to dst, with an Encoder
// of a pool. On error dst is returned unchanged.
func AppendCompact(dst []byte, v any) ([]byte, error) {
	if out, ok := appendDirect(dst, v); ok {
		return out, nil
	}
	enc := encoders.Get().(*Encoder)
	out, err := enc.AppendCompact(dst, v)
	if enc.small() {
		encoders.Put(enc) // a huge value's buffers are not kept
	}
	return out, err
}

// validUTF8 replaces each byte of b that is not part of a valid UTF-8
// sequence with U+FFFD. Such bytes can only be inside JSON strings (the
// rest of the syntax is ASCII), so the result is the same JSON, readable by
// any parser that insists on UTF-8.
func validUTF8(b []byte) []byte {
	if utf8.Valid(b) {
		return b
	}
	out := make([]byte, 0, len(b)+8)
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size <= 1 {
			out = append(out, "\uFFFD"...)
			b = b[1:]
			continue
		}
		out = append(out, b[:size]...)
		b = b[size:]
	}
	return out
}

// unescapeSeparators undoes encoding/json's escaping of U+2028 and U+2029,
// which JSON.stringify leaves as they are, and writes the \ufffd it puts for
// an invalid byte in a string as the character itself, as validUTF8 and
// JSON.stringify do. A backslash before the sequence that is itself escaped
// (\\u2028 in the text) is left alone.
func unescapeSeparators(b []byte) []byte {
	if !bytes.Contains(b, []byte(`\u202`)) && !bytes.Contains(b, []byte(`\ufffd`)) {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] == '\\' && i+1 < len(b) {
			if i+5 < len(b) && b[i+1] == 'u' && string(b[i+2:i+5]) == "202" && (b[i+5] == '8' || b[i+5] == '9') {
				if b[i+5] == '8' {
					out = append(out, "\u2028"...)
				} else {
					out = append(out, "\u2029"...)
				}
				i += 5
				continue
			}
			if i+5 < len(b) && string(b[i+1:i+6]) == "ufffd" {
				out = append(out, "\uFFFD"...)
				i += 5
				continue
			}
			out = append(out, b[i], b[i+1])
			i++
			continue
		}
		out = append(out, b[i])
	}
	return out
}

// Decode parses one JSON value from data, keeping numbers as json.Number so
// that they are written back exactly as they were read. Trailing data after
// the value is an error.
func Decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("unexpected data after the JSON value")
	}
	return v, nil
}
