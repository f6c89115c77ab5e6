package jsontok

import (
	"encoding/json"
	"testing"
)

// Each reader agrees with encoding/json on what a string, a number or a
// literal is, and says where it ends.
func FuzzTokens(f *testing.F) {
	for _, s := range []string{`"a"`, `"abcdefghijklmnop"`, `"a\"b"`, `"\u00e9"`, `"\u00g9"`, `"\x"`, "\"\x01\"", `"open`,
		`0`, `-0`, `12.5e+3`, `01`, `1.`, `-`, `1e`, `true`, `false`, `null`, `nul`, ` `, `"12345678\\"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		valid := json.Valid(data)
		var end int
		switch {
		case len(data) == 0:
			return
		case data[0] == '"':
			end, _ = StringEnd(data, 0)
		case data[0] == '-' || IsDigit(data[0]):
			end = NumberEnd(data, 0)
		case data[0] == 't':
			end = LiteralEnd(data, 0, "true")
		case data[0] == 'f':
			end = LiteralEnd(data, 0, "false")
		case data[0] == 'n':
			end = LiteralEnd(data, 0, "null")
		default:
			return
		}
		whole := end >= 0 && SkipSpace(data, end) == len(data)
		if data[0] == '"' && whole && !valid {
			// StringEnd leaves UTF-8 to its callers
			var s string
			if json.Unmarshal(data, &s) == nil {
				t.Fatalf("json.Unmarshal reads %q, json.Valid does not", data)
			}
			return
		}
		if whole != valid {
			t.Errorf("%q: read to %d of %d, json.Valid %v", data, end, len(data), valid)
		}
	})
}

func TestStringEnd(t *testing.T) {
	for _, tt := range []struct {
		in      string
		end     int
		escaped bool
	}{
		{`"abc" x`, 5, false},
		{`"abcdefghijklmnopq",`, 19, false},
		{`"ab\ncd"`, 8, true},
		{`"abcdefgh\u00e9xyz"`, 19, true},
		{`"abcdefgh`, -1, false},
		{"\"abc\x1f\"", -1, false},
		{`"ab\q"`, -1, false},
		{`"ab\u12"`, -1, false},
		{`"ab\`, -1, false},
	} {
		end, escaped := StringEnd([]byte(tt.in), 0)
		if end != tt.end || end > 0 && escaped != tt.escaped {
			t.Errorf("StringEnd(%q) = %d, %v; want %d, %v", tt.in, end, escaped, tt.end, tt.escaped)
		}
	}
}

func TestSkipSpace(t *testing.T) {
	if got := SkipSpace([]byte(" \t\r\n x"), 0); got != 5 {
		t.Errorf("SkipSpace = %d", got)
	}
	if got := SkipSpace([]byte("  "), 1); got != 2 {
		t.Errorf("SkipSpace to the end = %d", got)
	}
	if IsSpace('\v') || IsSpace(0xa0) {
		t.Error("IsSpace takes what JSON does not")
	}
}

func TestCompactValueEnd(t *testing.T) {
	doc := []byte(`{"a":[1,{"b":"x}\"]"}],"c":true,"d":-1.5e3}`)
	for _, tt := range []struct {
		i, end int
	}{
		{0, len(doc)}, {5, 22}, {6, 7}, {8, 21}, {27, 31}, {36, 42}, {len(doc), -1},
	} {
		if got := CompactValueEnd(doc, tt.i); got != tt.end {
			t.Errorf("CompactValueEnd at %d (%q) = %d, want %d", tt.i, doc[tt.i:min(tt.i+4, len(doc))], got, tt.end)
		}
	}
	for _, bad := range []string{`"open`, `[1,2`, `{"a":"b`, `,`} {
		if got := CompactValueEnd([]byte(bad), 0); got != -1 {
			t.Errorf("CompactValueEnd(%q) = %d, want -1", bad, got)
		}
	}
}
