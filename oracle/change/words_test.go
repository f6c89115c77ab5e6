package change

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzWordDiff checks that a word diff rebuilds both strings (shared and
// deleted text the old one, shared and inserted text the new one), and that
// an elided span only ever stands for shared text.
func FuzzWordDiff(f *testing.F) {
	f.Add("expected to close 2026-07-15.", "expected to close on 2026-07-15.")
	f.Add("a b c", "")
	f.Add(strings.Repeat("x ", 100)+"end", strings.Repeat("x ", 100)+"fin")
	f.Add("\uE000 \U000F0000", "\uE001")
	f.Fuzz(func(t *testing.T, a, b string) {
		if !utf8.ValidString(a) || !utf8.ValidString(b) {
			return
		}
		old, fresh, elided := rebuild(WordDiff(a, b))
		if elided == 0 && (old != a || fresh != b) {
			t.Fatalf("WordDiff(%q, %q) rebuilds %q and %q", a, b, old, fresh)
		}
		if elided > 0 && utf8.RuneCountInString(old)+elided != utf8.RuneCountInString(a) {
			t.Fatalf("WordDiff(%q, %q): elided %d characters of shared text, rebuilt %q", a, b, elided, old)
		}
	})
}

// rebuild is what spans give of each side: shared and deleted text the old
// one, shared and inserted text the new one, and how many characters of
// shared text they elide.
func rebuild(spans []Span) (old, fresh string, elided int) {
	var o, f strings.Builder
	for _, s := range spans {
		switch s.Op {
		case Same:
			o.WriteString(s.Text)
			f.WriteString(s.Text)
		case Deleted:
			o.WriteString(s.Text)
		case Inserted:
			f.WriteString(s.Text)
		case Elided:
			elided += s.Skipped
		}
	}
	return o.String(), f.String(), elided
}
