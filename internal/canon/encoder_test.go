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
		map[string]string{"b": "1", "a": "2", "": ""}, map[string]string{"q\"": "x"}, map[string]string{"a": "é"}, map[string]string(nil),
		map[string]any{"z": 1, "a": "x", "m": map[string]any{"n": nil, "t": true, "i": int64(-3)}, "s": map[string]string{"k": "v"}},
		map[string]any{"f": 1.5, "a": "x"}, map[string]any{"list": []int{1}}, map[string]any{"bad": "\xff"}, map[string]any(nil), map[string]any{},
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

// Maps of strings and of simple values, which agents pass as tool inputs,
// are written as encoding/json writes them, whatever their keys and values.
func FuzzEncoderMaps(f *testing.F) {
	f.Add("a", "b", "c", int64(1), true)
	f.Add("", "\u2028", "<&>", int64(-9), false)
	enc := NewEncoder()
	f.Fuzz(func(t *testing.T, k1, k2, v string, n int64, b bool) {
		for _, m := range []any{
			map[string]string{k1: v, k2: k1},
			map[string]any{k1: v, k2: n, "b": b, "m": map[string]any{k2: nil, k1: map[string]string{v: v}}},
		} {
			want, werr := compactReference(m)
			got, gerr := enc.AppendCompact(nil, m)
			if werr != nil || gerr != nil || string(want) != string(got) {
				t.Fatalf("%#v: want %q (%v), got %q (%v)", m, want, werr, got, gerr)
			}
		}
	})
}

// The pooled AppendCompact appends what Compact gives and leaves dst as it
// was on error.
func TestAppendCompact(t *testing.T) {
	got, err := AppendCompact([]byte("a "), map[string]any{"b": "<x>", "a": json.RawMessage(`[1, 2]`)})
	if err != nil || string(got) != `a {"a":[1,2],"b":"<x>"}` {
		t.Errorf("AppendCompact = %q, %v", got, err)
	}
	if got, err := AppendCompact([]byte("a "), math.Inf(1)); err == nil || string(got) != "a " {
		t.Errorf("AppendCompact(+Inf) = %q, %v; want an error and dst as it was", got, err)
	}
}
