package safetext

import (
	"fmt"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestString(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", ""},
		{"plain text, é ✓ 日本 → …", "plain text, é ✓ 日本 → …"},
		{"a\nb", `a\nb`},
		{"a\r\nb\tc\vd\fe\bf\ag", `a\r\nb\tc\vd\fe\bf\ag`},
		{"\x00\x01\x1f", `\x00\x01\x1f`},
		{"\x1b[2J\x1b[H", `\x1b[2J\x1b[H`},                                                     // clear the screen
		{"\x1b]52;c;ZXZpbA==\x07", `\x1b]52;c;ZXZpbA==\a`},                                     // OSC 52: set the clipboard
		{"\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", `\x1b]8;;http://x\x1b\link\x1b]8;;\x1b\`}, // OSC 8 hyperlink
		{"ok\rFAKE", `ok\rFAKE`},
		{"del\x7f", `del\x7f`},
		{"c1 \u0085 \u009b31m \u0090", `c1 \u0085 \u009b31m \u0090`},
		{"abc\u202Edcba", `abc\u202edcba`}, // right-to-left override
		{"\u2066isolate\u2069 \u200E\u200F\u061C", `\u2066isolate\u2069 \u200e\u200f\u061c`},
		{"zero\u200Bwidth\u200C\u200D\u2060\uFEFF", `zero\u200bwidth\u200c\u200d\u2060\ufeff`},
		{"soft\u00ADhyphen", `soft\u00adhyphen`},
		{"tag\U000E0041", `tag\U000e0041`},
		{"line\u2028para\u2029", `line\u2028para\u2029`},
		{"fill\u3164\u115F\u1160\uFFA0\u034F\u17B4", `fill\u3164\u115f\u1160\uffa0\u034f\u17b4`},
		{"non\uFFFE\uFFFF", `non\ufffe\uffff`},
		{"bad \xff\xfe utf8 \xed\xa0\x80", `bad \xff\xfe utf8 \xed\xa0\x80`}, // an encoded surrogate is not UTF-8
		{"##vso[task.setvariable variable=x]1", `#\x23vso[task.setvariable variable=x]1`},
		{"say ##VSO[task.complete result=Succeeded]", `say #\x23VSO[task.complete result=Succeeded]`},
		{"## heading # vso ##vs", "## heading # vso ##vs"},
		{"::error::x", "::error::x"}, // only at a line's start, which outside text never is
		{`back\slash "quote"`, `back\slash "quote"`},
	} {
		if got := String(tt.in); got != tt.want {
			t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestLineStart(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"crm", "crm"},
		{"::error::x", `\x3a:error::x`},
		{"  ::add-mask::s3cret", `  \x3a:add-mask::s3cret`},
		{"##[error]boom", `\x23#[error]boom`},
		{"##vso[task.complete]", `\x23\x23vso[task.complete]`},
		{"\n::error::x", `\n::error::x`},
		{"a::b", "a::b"},
		{"", ""},
	} {
		if got := LineStart(tt.in); got != tt.want {
			t.Errorf("LineStart(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestEscapesAsPercentQ: every character String escapes is written as %q
// writes it (QuoteToASCII for the characters %q leaves printable).
func TestEscapesAsPercentQ(t *testing.T) {
	n := 0
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if !Unsafe(r) || !utf8.ValidRune(r) {
			continue
		}
		n++
		q := fmt.Sprintf("%+q", string(r))
		if got, want := String(string(r)), q[1:len(q)-1]; got != want {
			t.Fatalf("String(%U) = %s, want %s as %%+q writes it", r, got, want)
		}
	}
	if n < 200 {
		t.Errorf("only %d characters are escaped", n)
	}
}

func FuzzString(f *testing.F) {
	for _, s := range []string{"a\nb", "\x1b]52;c;x\x07", "\u202e", "##vso[", "#\x1b#vso[", "\xff", "ok"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := String(s)
		if !utf8.ValidString(out) {
			t.Fatalf("String(%q) = %q is not UTF-8", s, out)
		}
		for _, r := range out {
			if Unsafe(r) {
				t.Fatalf("String(%q) = %q holds %U", s, out, r)
			}
		}
		if strings.Contains(strings.ToLower(out), "##vso[") {
			t.Fatalf("String(%q) = %q holds an Azure Pipelines logging command", s, out)
		}
		if String(out) != out {
			t.Fatalf("String is not idempotent on %q: %q, then %q", s, out, String(out))
		}
		if firstUnsafe(s) < 0 && out != s {
			t.Fatalf("String(%q) = %q changed a safe string", s, out)
		}
	})
}
