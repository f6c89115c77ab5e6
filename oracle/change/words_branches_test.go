package change

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestSplitWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"a", []string{"a"}},
		{" ", []string{" "}},
		{"a b", []string{"a", " ", "b"}},
		{" a", []string{" ", "a"}},
		{"a ", []string{"a", " "}},
		{"ab  cd\t\nef", []string{"ab", "  ", "cd", "\t\n", "ef"}},
		{"é\u00a0ü", []string{"é", "\u00a0", "ü"}},
	}
	for _, tt := range tests {
		if got := splitWords(tt.in); !cmp.Equal(got, tt.want) {
			t.Errorf("splitWords(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestSymbolRune: the i-th distinct word is the i-th private-use character
// of the Basic Multilingual Plane, then of plane 15, and -1 once they run
// out; runeIndex is its inverse.
func TestSymbolRune(t *testing.T) {
	const bmp = 0xF8FF - 0xE000 + 1
	last := bmp + 0xFFFFD - 0xF0000 - 1
	tests := []struct {
		i    int
		want rune
	}{
		{0, 0xE000}, {1, 0xE001}, {bmp - 1, 0xF8FF}, {bmp, 0xF0000}, {bmp + 1, 0xF0001},
		{last, 0xFFFFC}, {last + 1, -1}, {last + 100, -1},
	}
	for _, tt := range tests {
		got := symbolRune(tt.i)
		if got != tt.want {
			t.Errorf("symbolRune(%d) = %#x, want %#x", tt.i, got, tt.want)
		}
		if got >= 0 && runeIndex(got) != tt.i {
			t.Errorf("runeIndex(%#x) = %d, want %d", got, runeIndex(got), tt.i)
		}
	}
}

// spanText writes spans as op:text, an elided span as elided:N.
func spanText(spans []Span) []string {
	var out []string
	for _, s := range spans {
		if s.Op == Elided {
			out = append(out, fmt.Sprintf("elided:%d", s.Skipped))
			continue
		}
		out = append(out, string(s.Op)+":"+s.Text)
	}
	return out
}

// TestWordDiffBranches pins the word diff: words are the unit (a changed
// word is deleted and inserted whole), spans of one side are joined, a
// value up to 100 characters is shown whole, and a longer one keeps six
// words (and their spaces) of context on each side of each change, unless
// what it would leave out is shorter than 20 characters.
func TestWordDiffBranches(t *testing.T) {
	words := func(prefix string, n int) string {
		var w []string
		for i := range n {
			w = append(w, fmt.Sprintf("%s%d", prefix, i))
		}
		return strings.Join(w, " ")
	}
	w30 := words("w", 30) // w0 … w29: 139 characters
	tests := []struct {
		name       string
		old, fresh string
		want       []string
	}{
		{"a word replaced", "pay 10 now", "pay 20 now", []string{"same:pay ", "deleted:10", "inserted:20", "same: now"}},
		{"a word inserted", "a c", "a b c", []string{"same:a ", "inserted:b ", "same:c"}},
		{"everything replaced", "a", "b", []string{"deleted:a", "inserted:b"}},
		{"an empty side", "", "a b", []string{"inserted:a b"}},
		{"exactly 100 characters, shown whole", strings.Repeat("x", 47) + " a " + strings.Repeat("y", 48), strings.Repeat("x", 47) + " b " + strings.Repeat("y", 48),
			[]string{"same:" + strings.Repeat("x", 47) + " ", "deleted:a", "inserted:b", "same: " + strings.Repeat("y", 48)}},
		{"a change at the end of a long value", w30 + " end", w30 + " fin",
			[]string{"elided:86", "same:w24 w25 w26 w27 w28 w29 ", "deleted:end", "inserted:fin"}},
		{"a change at the start of a long value", "start " + w30, "begin " + w30,
			[]string{"deleted:start", "inserted:begin", "same: w0 w1 w2 w3 w4 w5", "elided:92"}},
		{"a change in the middle of a long value", w30 + " mid " + w30, w30 + " MID " + w30,
			[]string{"elided:86", "same:w24 w25 w26 w27 w28 w29 ", "deleted:mid", "inserted:MID", "same: w0 w1 w2 w3 w4 w5", "elided:92"}},
		{"a long insertion is shown whole", w30 + " " + w30, w30 + " " + words("new", 20) + " " + w30,
			[]string{"elided:86", "same:w24 w25 w26 w27 w28 w29 ", "inserted:" + words("new", 20) + " ", "same:w0 w1 w2 w3 w4 w5 ", "elided:91"}},
		{"two changes far apart", "a " + w30 + " z", "A " + w30 + " Z",
			[]string{"deleted:a", "inserted:A", "same: w0 w1 w2 w3 w4 w5", "elided:69", "same:w24 w25 w26 w27 w28 w29 ", "deleted:z", "inserted:Z"}},
		{"20 characters to leave out are left out", "aaaaaaaaa bbbbbbbbb c d e f g h " + strings.Repeat("x", 40), "aaaaaaaaa bbbbbbbbb c d e f g h " + strings.Repeat("y", 40),
			[]string{"elided:20", "same:c d e f g h ", "deleted:" + strings.Repeat("x", 40), "inserted:" + strings.Repeat("y", 40)}},
		{"one long word is never left out alone", strings.Repeat("L", 25) + " a b c d e f" + " " + strings.Repeat("x", 40), strings.Repeat("L", 25) + " a b c d e f" + "\t" + strings.Repeat("y", 40),
			[]string{"same:" + strings.Repeat("L", 25) + " a b c d e f", "deleted: " + strings.Repeat("x", 40), "inserted:\t" + strings.Repeat("y", 40)}},
		{"19 characters to leave out are kept", "aaaaaaaa bbbbbbbbb c d e f g h " + strings.Repeat("x", 40), "aaaaaaaa bbbbbbbbb c d e f g h " + strings.Repeat("y", 40),
			[]string{"same:aaaaaaaa bbbbbbbbb c d e f g h ", "deleted:" + strings.Repeat("x", 40), "inserted:" + strings.Repeat("y", 40)}},
		{"101 characters: a long value", "aaaaaaaaa bbbbbbbbb c d e f g h " + strings.Repeat("x", 35), "aaaaaaaaa bbbbbbbbb c d e f g h " + strings.Repeat("y", 34),
			[]string{"elided:20", "same:c d e f g h ", "deleted:" + strings.Repeat("x", 35), "inserted:" + strings.Repeat("y", 34)}},
		{"100 characters: shown whole", "aaaaaaaaa bbbbbbbbb c d e f g h " + strings.Repeat("x", 34), "aaaaaaaaa bbbbbbbbb c d e f g h " + strings.Repeat("y", 34),
			[]string{"same:aaaaaaaaa bbbbbbbbb c d e f g h ", "deleted:" + strings.Repeat("x", 34), "inserted:" + strings.Repeat("y", 34)}},
		{"too few words to leave any out", strings.Repeat("x", 110) + " a", strings.Repeat("x", 110) + " b",
			[]string{"same:" + strings.Repeat("x", 110) + " ", "deleted:a", "inserted:b"}},
		{"left-out text under 20 characters is kept", "a b c d e f g h i j k l m " + strings.Repeat("y", 90), "a b c d e f g h i j k l m " + strings.Repeat("z", 90),
			[]string{"same:a b c d e f g h i j k l m ", "deleted:" + strings.Repeat("y", 90), "inserted:" + strings.Repeat("z", 90)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, spanText(WordDiff(tt.old, tt.fresh))); diff != "" {
				t.Errorf("spans (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWordDiffManyWords: with more distinct words than private-use
// characters the diff is by character, and still rebuilds both sides.
func TestWordDiffManyWords(t *testing.T) {
	const bmp = 0xF8FF - 0xE000 + 1
	n := bmp + 0xFFFFD - 0xF0000 + 10
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%x ", i)
	}
	old := b.String() + "end"
	fresh := b.String() + "fin"
	spans := WordDiff(old, fresh)
	o, f, skipped := rebuild(spans)
	if skipped == 0 || utf8.RuneCountInString(o)+skipped != utf8.RuneCountInString(old) || utf8.RuneCountInString(f)+skipped != utf8.RuneCountInString(fresh) {
		t.Fatalf("%d spans rebuild %d and %d characters with %d elided, of %d and %d", len(spans), utf8.RuneCountInString(o), utf8.RuneCountInString(f), skipped, len(old), len(fresh))
	}
	// "end" → "fin" by character: e, fi, n shared, d
	want := []string{"deleted:e", "inserted:fi", "same:n", "deleted:d"}
	if got := spanText(spans[len(spans)-4:]); !cmp.Equal(got, want) {
		t.Errorf("last spans %q, want %q", got, want)
	}
}
