package canon

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The reused encoder writes what Compact writes, value after value, and
// leaves dst as it was on error.
func TestEncoderMatchesCompact(t *testing.T) {
	values := []any{
		"plain", "a<b>&c", "line\u2028sep\u2029", `back\u2028slash`, 42, 1.5, nil, true,
		json.RawMessage(`{ "b" : 1, "a" : [1, 2] }`), map[string]any{"z": 1, "a": []int{1}},
		"", "quote\" back\\ tab\t nl\n bell\a del\x7f", "bad \xff utf-8", "Zoë", int64(-7), false,
		json.RawMessage(nil), json.RawMessage(`"a\u2028b \ufffd \u003c"`), json.RawMessage("[\"bad \xff\"]"),
		Compacted(`{"a":[1,"x"]}`), Compacted(nil),
		struct {
			N string `json:"n"`
		}{"x"},
	}
	enc := NewEncoder()
	var got, want []byte
	for _, v := range values {
		c, err := compactReference(v)
		if err != nil {
			t.Fatal(err)
		}
		if pooled, err := Compact(v); err != nil || string(pooled) != string(c) {
			t.Errorf("Compact(%#v) = %q, %v; want %q", v, pooled, err, c)
		}
		want = append(append(want, c...), ' ')
		if got, err = enc.AppendCompact(got, v); err != nil {
			t.Fatal(err)
		}
		got = append(got, ' ')
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("encoder (-Compact +encoder):\n%s", diff)
	}
	before := string(got)
	if got, err := enc.AppendCompact(got, math.NaN()); err == nil || string(got) != before {
		t.Errorf("NaN: err %v, dst changed to %q", err, got)
	}
}

// For any string and any JSON text, the encoder's shortcuts write what
// the plain json.Encoder writes, and fail where it fails.
func FuzzEncoderMatchesCompact(f *testing.F) {
	for _, seed := range []string{"plain", `{"a": [1, "\u2028"]}`, "\xff", `"\ufffd"`, "a\u2028b", " null "} {
		f.Add(seed)
	}
	enc := NewEncoder()
	f.Fuzz(func(t *testing.T, s string) {
		for _, v := range []any{s, json.RawMessage(s)} {
			want, werr := compactReference(v)
			got, gerr := enc.AppendCompact([]byte("x"), v)
			if (werr == nil) != (gerr == nil) {
				t.Fatalf("%T %q: Compact error %v, encoder error %v", v, s, werr, gerr)
			}
			if werr == nil && "x"+string(want) != string(got) {
				t.Fatalf("%T %q: Compact %q, encoder %q", v, s, want, got[1:])
			}
		}
	})
}

// compactReference is what Compact writes, by the plain json.Encoder.
func compactReference(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return validUTF8(unescapeSeparators(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))), nil
}
