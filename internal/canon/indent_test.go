package canon

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// indentReference is what json.Indent writes for src, or its error.
func indentReference(src []byte, prefix, indent string) ([]byte, error) {
	var buf bytes.Buffer
	err := json.Indent(&buf, src, prefix, indent)
	return buf.Bytes(), err
}

func TestAppendIndent(t *testing.T) {
	tests := []struct {
		name, in, prefix, want string
	}{
		{"empty containers stay on their line", `{"a":[],"b":{},"c":[{}]}`, "", "{\n  \"a\": [],\n  \"b\": {},\n  \"c\": [\n    {}\n  ]\n}"},
		{"top-level empty", `[]`, "", `[]`},
		{"nested", `{"a":{"b":[1,[2,3]]}}`, "", "{\n  \"a\": {\n    \"b\": [\n      1,\n      [\n        2,\n        3\n      ]\n    ]\n  }\n}"},
		{"prefix after each newline only", `[1,{"k":null}]`, "> ", "[\n>   1,\n>   {\n>     \"k\": null\n>   }\n> ]"},
		{"structure inside strings untouched", `{"a,b":"{[\"]}:,","c\\":"\\"}`, "", "{\n  \"a,b\": \"{[\\\"]}:,\",\n  \"c\\\\\": \"\\\\\"\n}"},
		{"escapes and unicode", `["\u00e9\n\t\/","Zoë ✓ \u2028",""]`, "", "[\n  \"\\u00e9\\n\\t\\/\",\n  \"Zoë ✓ \\u2028\",\n  \"\"\n]"},
		{"long string with a quote after eight bytes", `["0123456789abcdef\"0123456789"]`, "", "[\n  \"0123456789abcdef\\\"0123456789\"\n]"},
		{"numbers as written", `[0,-0,1.50,1e3,-2E-7,12345678901234567890]`, "", "[\n  0,\n  -0,\n  1.50,\n  1e3,\n  -2E-7,\n  12345678901234567890\n]"},
		{"literals", `{"t":true,"f":false,"n":null}`, "", "{\n  \"t\": true,\n  \"f\": false,\n  \"n\": null\n}"},
		{"scalar", `"x"`, "    ", `"x"`},
		{"white space between tokens dropped", " { \"a\" : [ 1 , 2 ] , \"b\" : { } }", "", "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": {}\n}"},
		{"white space after the value kept", "[1] \n\t\r", "", "[\n  1\n] \n\t\r"},
		{"invalid UTF-8 in strings kept", "[\"\xff\xfe\"]", "", "[\n  \"\xff\xfe\"\n]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := AppendIndent([]byte("before:"), []byte(tt.in), tt.prefix, "  ")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff("before:"+tt.want, string(got)); diff != "" {
				t.Errorf("AppendIndent (-want +got):\n%s", diff)
			}
			ref, err := indentReference([]byte(tt.in), tt.prefix, "  ")
			if err != nil || string(ref) != tt.want {
				t.Errorf("json.Indent disagrees with the test: %q, %v", ref, err)
			}
		})
	}
}

// Every input json.Indent refuses, AppendIndent refuses, leaving dst as
// it was.
func TestAppendIndentRejectsInvalid(t *testing.T) {
	deep := func(n int, inner string) string {
		return strings.Repeat("[", n) + inner + strings.Repeat("]", n)
	}
	for _, in := range []string{
		``, ` `, `{`, `[`, `[1`, `[1,`, `[1,]`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{,}`, `{1:2}`, `{"a" 1}`, `[1 2]`,
		`]`, `}`, `[}`, `{]`, `{"a":1]`, `[1}`, `"abc`, `"a\"`, `"\x"`, `"\u12"`, `"\u12g4"`, "\"a\nb\"", "\"\x00\"",
		"\"0123456789\x1f\"", `tru`, `truex`, `nul`, `falsy`, `-`, `01`, `1.`, `1.e3`, `1e`, `1e+`, `.5`, `+1`, `--1`,
		`1 2`, `{} {}`, `[] x`, `"a" "b"`, `x`, "\x00", deep(maxDepth+1, ""), deep(maxDepth, "{}"),
	} {
		// no indentation: nesting 10,000 deep would write 100 MB of it
		if _, err := indentReference([]byte(in), "", ""); err == nil {
			t.Fatalf("json.Indent accepts %q: not a case for this test", in)
		}
		got, err := AppendIndent([]byte("kept"), []byte(in), "", "")
		if err == nil || string(got) != "kept" {
			t.Errorf("AppendIndent(%.40q) = %.40q, %v; want an error and dst as it was", in, got, err)
		}
	}
	ok := deep(maxDepth, "1")
	got, err := AppendIndent(nil, []byte(ok), "", "")
	if ref, referr := indentReference([]byte(ok), "", ""); err != nil || referr != nil || !bytes.Equal(got, ref) {
		t.Errorf("nesting of %d: %v, json.Indent: %v", maxDepth, err, referr)
	}
}

// FuzzAppendIndent checks that AppendIndent is json.Indent, for the
// compact JSON canon writes and for any bytes at all: the same output or
// an error for both.
func FuzzAppendIndent(f *testing.F) {
	for _, seed := range []string{
		`{}`, `[]`, `null`, `true`, `false`, `0`, `-1.5e+10`, `""`,
		`{"a":[1,2,{"b":null}],"c":{"d":{"e":[[],{}]}}}`,
		`["esc \" quote","back \\ slash","both \\\" \\\\\"","\\"]`,
		`{"s":"Zoë ✓ \u00e9 \ud83d\ude00 \u2028","t":"\n\t\r\b\f\/"}`,
		`[1.10,1e3,-0,12345678901234567890,0.5E-3]`,
		`[[[[[]]]]]`, `{"":""}`, `{"a": [ 1 , 2 ] }`, " [1] \n", `{"a":1]`, `"\u12"`, "\"\xff\"",
		`{"id":"C-001","name":"Ada Lovelace","email":"ada@example.com","tags":["vip","eu"],"score":12.5,"active":true}`,
	} {
		f.Add([]byte(seed), "", "  ")
	}
	f.Add([]byte(`{"a":[1,{"b":[]}]}`), "    ", "\t")
	f.Fuzz(func(t *testing.T, data []byte, prefix, indent string) {
		if len(prefix) > 8 || len(indent) > 8 {
			return
		}
		check := func(src []byte) {
			t.Helper()
			want, wantErr := indentReference(src, prefix, indent)
			got, err := AppendIndent([]byte("x"), src, prefix, indent)
			if (err == nil) != (wantErr == nil) {
				t.Fatalf("AppendIndent(%q): error %v, json.Indent: %v", src, err, wantErr)
			}
			if err != nil {
				want = nil
			}
			if string(got) != "x"+string(want) {
				t.Fatalf("AppendIndent(%q):\n%q\njson.Indent:\n%q", src, got, want)
			}
		}
		check(data)
		if compact, err := Compact(json.RawMessage(data)); err == nil {
			check(compact)
		}
	})
}

// rolloutJSON is compact JSON shaped like a crm rollout's artifacts: a list
// of records of short strings, numbers, nested lists and an empty object.
func rolloutJSON(records int) []byte {
	var b strings.Builder
	b.WriteString(`{"ok":true,"contacts":[`)
	for i := range records {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"C-%03d","name":"Contact %d","email":"contact%d@example.com","company":{"id":"CO-%02d","name":"Acme \"%d\""},"tags":["vip","eu"],"score":%d.5,"notes":[],"meta":{}}`, i, i, i, i%7, i, i)
	}
	b.WriteString(`],"total":`)
	fmt.Fprint(&b, records)
	b.WriteString(`}`)
	return []byte(b.String())
}

func BenchmarkIndent(b *testing.B) {
	for _, records := range []int{1, 20} {
		src := rolloutJSON(records)
		b.Run(fmt.Sprintf("AppendIndent/records=%d", records), func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			buf := make([]byte, 0, 4*len(src))
			for b.Loop() {
				var err error
				if buf, err = AppendIndent(buf[:0], src, "    ", "  "); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("json.Indent/records=%d", records), func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			var buf bytes.Buffer
			for b.Loop() {
				buf.Reset()
				if err := json.Indent(&buf, src, "    ", "  "); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkMarshal(b *testing.B) {
	v, err := Decode(rolloutJSON(20))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("records=20", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Marshal(v); err != nil {
				b.Fatal(err)
			}
		}
	})
	raw := json.RawMessage(rolloutJSON(20))
	b.Run("raw/records=20", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Marshal(raw); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// Marshal indents what it encoded with AppendIndent: bytes held in a
// Compacted that are not JSON are refused, not written.
func TestMarshalRefusesCompactedThatIsNotJSON(t *testing.T) {
	for _, c := range []Compacted{Compacted(`{"a":`), Compacted(`nope`), Compacted(`[1 2]`)} {
		if out, err := Marshal(c); err == nil {
			t.Errorf("Marshal(Compacted(%q)) = %q, want an error", c, out)
		}
	}
}
