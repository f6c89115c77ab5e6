package canon

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// Bytes that are not UTF-8, however they come in (a raw JSON message an
// agent sent, a Go string from its stdout), are written as U+FFFD, one a
// byte, so every artifact is valid UTF-8.
func TestOutputIsAlwaysUTF8(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"raw message with invalid bytes", json.RawMessage("{\"s\":\"a\xffb\xc3\"}"), "{\"s\":\"a\uFFFDb\uFFFD\"}"},
		{"Go string with invalid bytes", map[string]string{"s": "a\xff\xfeb"}, "{\"s\":\"a\uFFFD\uFFFDb\"}"},
		{"valid text untouched", json.RawMessage("{\"s\":\"Zoë ✓ \uFFFD\"}"), "{\"s\":\"Zoë ✓ \uFFFD\"}"},
		{"escaped backslash before ufffd text", map[string]string{"s": `\ufffd`}, `{"s":"\\ufffd"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Compact(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("Compact (-want +got):\n%s", diff)
			}
			indented, err := Marshal(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if !utf8.Valid(indented) || !json.Valid(indented) {
				t.Errorf("Marshal = %q, not valid UTF-8 JSON", indented)
			}
		})
	}
}

func TestEncoderIsAlwaysUTF8(t *testing.T) {
	got, err := NewEncoder().AppendCompact(nil, json.RawMessage("{\"s\":\"a\xffb\"}"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\"s\":\"a\uFFFDb\"}"; string(got) != want {
		t.Errorf("AppendCompact = %q, want %q", got, want)
	}
}
