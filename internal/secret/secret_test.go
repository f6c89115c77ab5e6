package secret

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

const key = "sk-proj-4f9Xq/+Zt=_kB7"

func TestRedact(t *testing.T) {
	t.Parallel()
	var s Set
	s.Add(key, "user:pa55w0rd", "short", "12345678", "")
	for _, tc := range []struct{ in, want string }{
		{`{"error":"Incorrect API key provided: ` + key + `"}`, `{"error":"Incorrect API key provided: [redacted]"}`},
		{`"x` + key + `y"`, `"x[redacted]y"`},                                        // a long value is removed wherever it is
		{`"sk-proj-4f9Xq\/+Zt=_kB7"`, `"[redacted]"`},                                // PHP's \/
		{`"\u0073k-proj-4f9Xq\u002f\u002BZt\u003d_kB7"`, `"[redacted]"`},             // \u escapes of any case
		{`"{\"k\":\"\\u0073k-proj-4f9Xq\\/+Zt=_kB7\"}"`, `"{\"k\":\"[redacted]\"}"`}, // nested JSON
		{`"k=sk-proj-4f9Xq%2F%2bZt%3D_kB7&x"`, `"k=[redacted]&x"`},                   // percent-encoded
		{`{"url":"https://user:pa55w0rd@host/v1"}`, `{"url":"https://[redacted]@host/v1"}`},
		{`"https://user%3Apa55w0rd@host"`, `"https://[redacted]@host"`},
		{`"user:pa55w0rds"`, `"user:pa55w0rds"`}, // a short value only where it stands alone
		{`"short and shorter"`, `"short and shorter"`},
		{`{"n":12345678,"s":"12345678"}`, `{"n":12345678,"s":"[redacted]"}`}, // only strings: JSON stays JSON
		{`["\\` + key + `"]`, `["\\[redacted]"]`},
		{"", ""},
	} {
		if got := string(s.Redact([]byte(tc.in))); got != tc.want {
			t.Errorf("Redact(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"Bearer " + key, "Bearer [redacted]"},
		{"x" + key + "y", "x[redacted]y"},
		{`say "` + key + `"`, `say "[redacted]"`},
		{"https://user:pa55w0rd@host/v1", "https://[redacted]@host/v1"},
		{"12345678 apples", "[redacted] apples"},
		{"a12345678", "a12345678"},
		{"", ""},
	} {
		if got := s.String(tc.in); got != tc.want {
			t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	in := []byte(`"nothing secret here"`)
	if out := s.Redact(in); &out[0] != &in[0] {
		t.Error("Redact copied bytes that hold no secret")
	}
	var empty Set
	if !empty.Empty() || string(empty.Redact([]byte(`"`+key+`"`))) != `"`+key+`"` {
		t.Error("the empty set redacts")
	}
}

// TestRedactKeepsJSON: a secret that starts inside an escape (hex digits
// after \u) takes the escape with it.
func TestRedactKeepsJSON(t *testing.T) {
	t.Parallel()
	var s Set
	s.Add("0041deadbeefcafe00")
	for _, in := range []string{`"\u0041deadbeefcafe00"`, `"\u00410041deadbeefcafe00"`, `"\\0041deadbeefcafe00"`} {
		out := s.Redact([]byte(in))
		if !json.Valid(out) {
			t.Errorf("Redact(%s) = %s, not JSON", in, out)
		}
	}
}

// FuzzRedact: whatever the text around it, a secret spelled as JSON
// (escaped by Go with and without HTML escaping, with \u escapes
// throughout, nested in a JSON string) or percent-encoded is gone once the
// text is decoded again, and JSON stays valid JSON.
func FuzzRedact(f *testing.F) {
	f.Add("before ", key, " after", uint8(0))
	f.Add(`"\`, "0041deadbeefcafe00", `\u`, uint8(3))
	f.Add("", "abcdefgh", "", uint8(4))
	f.Fuzz(func(t *testing.T, before, value, after string, how uint8) {
		if len(value) < MinLength || !utf8.ValidString(value) || !utf8.ValidString(before+after) ||
			strings.Contains(value, strings.Repeat(`\`, 5)) {
			return // not a secret (one has no long run of backslashes: see maxBackslashes)
		}
		// a short value is removed where it stands alone (and only there)
		if len(value) < AnywhereLength {
			before, after = before+" ", " "+after
			if strings.Contains(before, value) || strings.Contains(after, value) {
				return // the value stands elsewhere too, not alone
			}
		}
		var s Set
		s.Add(value)
		text := before + value + after
		switch how % 5 {
		case 0: // JSON as Go writes it
			b, _ := json.Marshal(text)
			checkJSON(t, &s, b, value, 1)
		case 1: // JSON without HTML escaping, with \/ for /
			var sb strings.Builder
			enc := json.NewEncoder(&sb)
			enc.SetEscapeHTML(false)
			enc.Encode(text)
			checkJSON(t, &s, []byte(strings.ReplaceAll(strings.TrimSpace(sb.String()), "/", `\/`)), value, 1)
		case 2: // every character of the value \u-escaped
			b, _ := json.Marshal(before)
			a, _ := json.Marshal(after)
			var sb strings.Builder
			sb.Write(b[:len(b)-1])
			for _, r := range value {
				if r > 0xffff {
					hi, lo := 0xd800+(r-0x10000)>>10, 0xdc00+(r-0x10000)&0x3ff
					sb.WriteString(`\u` + hex(int(hi)) + `\u` + hex(int(lo)))
					continue
				}
				sb.WriteString(`\u` + hex(int(r)))
			}
			sb.Write(a[1:])
			checkJSON(t, &s, []byte(sb.String()), value, 1)
		case 3: // a JSON string in a JSON string
			inner, _ := json.Marshal(text)
			b, _ := json.Marshal(string(inner))
			checkJSON(t, &s, b, value, 2)
		case 4: // percent-encoded
			out := s.String(url.QueryEscape(text))
			dec, err := url.QueryUnescape(string(out))
			if err == nil && strings.Contains(dec, value) {
				t.Fatalf("Redact(%q) = %q: the value is still there", url.QueryEscape(text), out)
			}
		}
	})
}

func checkJSON(t *testing.T, s *Set, in []byte, value string, depth int) {
	t.Helper()
	out := s.Redact(in)
	if !json.Valid(out) {
		t.Fatalf("Redact(%s) = %s, not JSON", in, out)
	}
	dec := string(out)
	for range depth {
		var str string
		if err := json.Unmarshal([]byte(dec), &str); err != nil {
			return // the inner text is no longer JSON: the mark cut it
		}
		dec = str
	}
	if strings.Contains(dec, value) {
		t.Fatalf("Redact(%s) = %s: the value is still there", in, out)
	}
}

func hex(v int) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[v>>12&15], digits[v>>8&15], digits[v>>4&15], digits[v&15]})
}
