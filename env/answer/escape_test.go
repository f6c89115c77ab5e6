package answer

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// escapes are sequences of every ECMA-48 kind a terminal acts on, in their
// 7-bit and 8-bit forms, with digits in them wherever the kind allows.
var escapes = []string{
	"\x1b[1m", "\x1b[0m", "\x1b[38;2;255;0;0m", "\x1b[2J", "\x1b[10;20H", "\x1b[?25l", "\x1b[1 q", "\x1b[>0c",
	"\x1b]0;title 42\x07", "\x1b]52;c;MTIzNA==\x07", "\x1b]8;;https://x.test/9\x1b\\", "\x1b]2;7\u009c",
	"\x1bP1$r0m\x1b\\", "\x1bX12\x1b\\", "\x1b^34\x1b\\", "\x1b_56\x1b\\",
	"\x1b(B", "\x1b)0", "\x1b#8", "\x1b 5", "\x1b7", "\x1b8", "\x1bc", "\x1bM", "\x1b=",
	"\u009b1m", "\u009b38;5;9m", "\u009d0;8\u009c", "\u009d0;8\x07", "\u00903\u009c", "\u009812\u009c", "\u009e3\u009c", "\u009f4\u009c",
	"\u0085", "\u008d", "\u0090\u009c",
}

func TestEscapesAreNotText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text    string
		numbers []float64
	}{
		{"\x1b[1m$479,659.50\x1b[0m", []float64{479659.5}},
		{"\x1b[38;2;12;34;56m12\x1b[39m apples", []float64{12}},
		{"\x1b]0;build 42\x07total: $5", []float64{5}},
		{"\x1b]8;;https://x.test/7\x1b\\$300\x1b]8;;\x1b\\", []float64{300}},
		{"\u009b31m1,250\u009b0m", []float64{1250}},
		{"4\x1b[0m79", []float64{479}}, // the terminal shows 479
		{"\x1b]0;unterminated 99", nil},
		{"\x1b]0;cancelled 9\x18 then 3", []float64{3}},
		{"\x1bP q#1;2;3 \x1b\\8", []float64{8}},
		{"\x1b[1\n2 apples", []float64{2}}, // a control ends the sequence unfinished
		{"é \u00851", []float64{1}}, {"é\u00851", nil},
		{"\x1b", nil}, {"5\x1b", []float64{5}}, {"\x1b 5 apples", nil}, // ESC SP 5 is a sequence (S7C1T's kind)
	} {
		if diff := cmp.Diff(tc.numbers, NumbersIn(tc.text)); diff != "" {
			t.Errorf("NumbersIn(%q) (-want +got):\n%s", tc.text, diff)
		}
	}
	if !StatesNumber("\x1b[1m$479,659.50\x1b[0m", 479659.5, 0) || StatesNumber("\x1b[1m$479,659.50\x1b[0m", 1, 0) || StatesNumber("\x1b[1m$479,659.50\x1b[0m", 0, 0) {
		t.Error("StatesNumber reads the colour codes of \\x1b[1m$479,659.50\\x1b[0m")
	}
	if !Names("\x1b[1mDana\x1b[0m \x1b[4mKim\x1b[24m", "Dana Kim") || !Names("Dana Kim", "\x1b[1mDana Kim\x1b[0m") {
		t.Error("Names does not see a coloured name")
	}
	if Names("\x1b]0;Dana Kim\x07", "Dana Kim") || !DoesNotName("\x1b]2;Kim\x07done", "Dana Kim") {
		t.Error("a window title counts as text")
	}
	if Hedges("\x1b]0;either\x07$5") || !Hedges("$5 \x1b[1mor\x1b[0m $6") {
		t.Error("Hedges reads escape sequences as text")
	}
}

func TestPlainKeepsOtherText(t *testing.T) {
	t.Parallel()
	for _, s := range append(slices.Clone(foldSeeds), "¢ £ ¥ © é ÿ \u00a0", "\xc2", "a\xc2", "\xc2\x7f", "\x9b1m raw byte") {
		if got := plain(s); got != s {
			t.Errorf("plain(%q) = %q; text without escapes is kept", s, got)
		}
	}
}

// FuzzEscapesIgnored inserts an escape sequence of each kind into a text
// at a place the fuzzer chooses, and requires every helper to read the text
// as it reads it without: no number, word or hedge comes from a sequence,
// none is lost to one.
func FuzzEscapesIgnored(f *testing.F) {
	for _, s := range []string{"$479,659.50", "Dana Kim has 3", "either 5 or 6", "2026-06-30", "1.8 million", ""} {
		f.Add(s, uint8(0), uint16(0), "7")
		f.Add(s, uint8(16), uint16(3), "0;1")
	}
	f.Fuzz(func(t *testing.T, text string, kind uint8, at uint16, payload string) {
		// the text itself holds no escape (its own would swallow the
		// inserted one's end) and the payload nothing that ends a sequence
		text = strings.Map(noEscape, text)
		payload = strings.Map(func(r rune) rune {
			if r < 0x20 || r >= 0x7f {
				return -1
			}
			return r
		}, payload)
		seq := escapeOf(int(kind)%len(escapes), payload)
		pos := int(at) % (len(text) + 1)
		for pos > 0 && pos < len(text) && !utf8.RuneStart(text[pos]) {
			pos--
		}
		with := text[:pos] + seq + text[pos:]
		if got := plain(with); got != text {
			t.Fatalf("plain(%q) = %q, want %q", with, got, text)
		}
		if got, want := NumbersIn(with), NumbersIn(text); !slices.Equal(got, want) {
			t.Fatalf("NumbersIn(%q) = %v, without the sequence %v", with, got, want)
		}
		if got, want := Fold(with).words, Fold(text).words; !slices.Equal(got, want) {
			t.Fatalf("Fold(%q) = %q, without the sequence %q", with, got, want)
		}
		if Hedges(with) != Hedges(text) {
			t.Fatalf("Hedges(%q) differs without the sequence", with)
		}
	})
}

// escapeOf is escapes[i] with its digits and letters between introducer
// and terminator replaced by payload where the kind allows any text (the
// control strings), and as it is otherwise.
func escapeOf(i int, payload string) string {
	e := escapes[i]
	for _, intro := range []string{"\x1b]", "\x1bP", "\x1bX", "\x1b^", "\x1b_"} {
		if rest, ok := strings.CutPrefix(e, intro); ok {
			for _, st := range []string{"\x07", "\x1b\\", "\u009c"} {
				if _, ok := strings.CutSuffix(rest, st); ok && (st != "\x07" || intro == "\x1b]") {
					return intro + payload + st
				}
			}
		}
	}
	return e
}

func noEscape(r rune) rune {
	if r == 0x1b || r >= 0x80 && r <= 0x9f {
		return ' '
	}
	return r
}
