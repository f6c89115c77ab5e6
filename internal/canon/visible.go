package canon

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Visible writes the characters of s a terminal could act on or that show
// as nothing (controls, C1 controls, DEL, format characters such as the
// bidirectional overrides, line and paragraph separators) and bytes that
// are not UTF-8 as \uXXXX escapes, as inside a JSON string: JSON text
// keeps its meaning, and text from tools and agents can be shown on a
// terminal.
func Visible(s string) string {
	if utf8.ValidString(s) && !strings.ContainsFunc(s, hidden) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if !hidden(r) {
			b.WriteRune(r)
			continue
		}
		if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
			fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
		} else {
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

// hidden reports whether Visible writes r as an escape.
func hidden(r rune) bool {
	return r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || r == '\u2028' || r == '\u2029' || r == utf8.RuneError ||
		unicode.Is(unicode.Cf, r)
}
