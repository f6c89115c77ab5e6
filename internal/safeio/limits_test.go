package safeio

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// depthByteByByte is Depth written the plain way, byte by byte.
func depthByteByByte(data []byte) int {
	d, most, inString, escaped := 0, 0, false, false
	for _, c := range data {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			d++
			most = max(most, d)
		case c == '}' || c == ']':
			d--
		}
	}
	return most
}

// Depth skips strings, escaped quotes and backslashes included, and counts
// what is outside them, as a byte-by-byte reading does, for any bytes.
func FuzzDepth(f *testing.F) {
	for _, seed := range []string{
		`{"a":[1,{"b":"[[["}]}`, `["\"[", "\\", "\\\"{"]`, `"unterminated [`, `[[["\\\\"]]]`, "{\"a\":1}\n[[2]]\n",
		`"\\\\\\"[" [`, `[`, `]]][[`, `""`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := Depth(data), depthByteByByte(data); got != want {
			t.Fatalf("Depth(%q) = %d, want %d", data, got, want)
		}
	})
}

// CheckLimits refuses nesting deeper than MaxDepth, and only that, however
// many brackets the data holds or where they are.
func TestCheckLimitsDepth(t *testing.T) {
	nest := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	tests := []struct {
		name string
		data string
		want error
	}{
		{"as deep as allowed", nest(MaxDepth), nil},
		{"one deeper", nest(MaxDepth + 1), ErrTooDeep},
		{"many shallow arrays", "[" + strings.Repeat("[],", 3*MaxDepth) + "[]]", nil},
		{"brackets in a string", `["` + strings.Repeat("[{", MaxDepth) + `"]`, nil},
		{"deep after many shallow", "[" + strings.Repeat("{},", MaxDepth) + nest(MaxDepth) + "]", ErrTooDeep},
	}
	for _, tt := range tests {
		if err := CheckLimits([]byte(tt.data)); !errors.Is(err, tt.want) {
			t.Errorf("%s: CheckLimits = %v, want %v", tt.name, err, tt.want)
		}
	}
}

// DecoderDepth is encoding/json's limit on nesting, for each of its ways
// of reading JSON: what it says of the decoders is what they do. (That
// json.Indent has it too, canon's test of AppendIndent shows: indenting
// 10,000 levels takes seconds.)
func TestDecoderDepthIsEncodingJSONs(t *testing.T) {
	nest := func(n int) []byte { return []byte(strings.Repeat("[", n) + strings.Repeat("]", n)) }
	readers := map[string]func([]byte) error{
		"json.Valid": func(b []byte) error {
			if !json.Valid(b) {
				return errors.New("not valid")
			}
			return nil
		},
		"json.Unmarshal": func(b []byte) error { var v any; return json.Unmarshal(b, &v) },
		"json.Decoder":   func(b []byte) error { var v any; return json.NewDecoder(bytes.NewReader(b)).Decode(&v) },
	}
	for name, read := range readers {
		if err := read(nest(DecoderDepth)); err != nil {
			t.Errorf("%s refuses nesting of DecoderDepth (%d): %v", name, DecoderDepth, err)
		}
		if err := read(nest(DecoderDepth + 1)); err == nil {
			t.Errorf("%s reads nesting of DecoderDepth+1 (%d)", name, DecoderDepth+1)
		}
	}
}
