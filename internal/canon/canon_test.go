package canon

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMarshalMatchesJSONStringify(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"empty containers", `{"a":[],"b":{}}`, "{\n  \"a\": [],\n  \"b\": {}\n}\n"},
		{"no HTML escaping", `{"s":"<a & b>"}`, "{\n  \"s\": \"<a & b>\"\n}\n"},
		{"line separators kept raw", `{"s":"a\u2028b\u2029c"}`, "{\n  \"s\": \"a\u2028b\u2029c\"\n}\n"},
		{"escaped backslash before u2028 text", `{"s":"\\u2028"}`, "{\n  \"s\": \"\\\\u2028\"\n}\n"},
		{"numbers as written", `{"n":[1.10,1e3,-0,12345678901234567890]}`, "{\n  \"n\": [\n    1.10,\n    1e3,\n    -0,\n    12345678901234567890\n  ]\n}\n"},
		{"unicode", `{"s":"Zoë ✓"}`, "{\n  \"s\": \"Zoë ✓\"\n}\n"},
		{"control characters escaped", `{"s":"a\u0001b\n"}`, "{\n  \"s\": \"a\\u0001b\\n\"\n}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := Decode([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			got, err := Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("Marshal (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeRejectsTrailingData(t *testing.T) {
	for _, in := range []string{`{} {}`, `1 2`, `{"a":1}x`, ``, `{`} {
		if _, err := Decode([]byte(in)); err == nil {
			t.Errorf("Decode(%q) succeeded", in)
		}
	}
}

// FuzzMarshal checks the canonical writer: parse → write → parse gives the
// same value, and writing is idempotent.
func FuzzMarshal(f *testing.F) {
	for _, seed := range []string{
		`{}`, `[]`, `null`, `{"a":[1,2,{"b":null}],"c":"x\u2028y"}`, `{"n":1.50,"m":-0.0,"e":1E+2}`,
		`"\\u2028"`, `{"s":"<>&\u00e9\ud83d\ude00"}`, `[[[[[]]]]]`, `{"":""}`, `{"a":1,"a":2}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Decode(data)
		if err != nil {
			return
		}
		out, err := Marshal(v)
		if err != nil {
			t.Fatalf("Marshal of a decoded value failed: %v", err)
		}
		if !json.Valid(out) || out[len(out)-1] != '\n' {
			t.Fatalf("Marshal wrote invalid JSON or no final newline: %q", out)
		}
		back, err := Decode(out)
		if err != nil {
			t.Fatalf("Decode of Marshal output: %v\n%s", err, out)
		}
		if !reflect.DeepEqual(v, back) {
			t.Fatalf("round trip changed the value:\n%#v\n%#v", v, back)
		}
		if ref, err := marshalReference(v); err != nil || string(ref) != string(out) {
			t.Fatalf("Marshal differs from the plain json.Encoder's indentation:\n%s\n%s (%v)", out, ref, err)
		}
		again, err := Marshal(back)
		if err != nil || string(again) != string(out) {
			t.Fatalf("Marshal is not idempotent:\n%s\n%s", out, again)
		}
		compact, err := Compact(v)
		if err != nil || !json.Valid(compact) {
			t.Fatalf("Compact: %v %q", err, compact)
		}
	})
}

// marshalReference is what Marshal writes, by the plain json.Encoder.
func marshalReference(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return validUTF8(unescapeSeparators(buf.Bytes())), nil
}
