package safeio

import "testing"

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
