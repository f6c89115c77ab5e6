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
	var b []byte
	for _, r := range s {
		b = appendVisible(b, r, hidden)
	}
	return string(b)
}

// appendVisible appends r to dst, as a \uXXXX escape (two for a rune
// beyond the Basic Multilingual Plane, as JSON spells it) when escape says.
func appendVisible(dst []byte, r rune, escape func(rune) bool) []byte {
	if !escape(r) {
		return utf8.AppendRune(dst, r)
	}
	if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
		return fmt.Appendf(dst, `\u%04x\u%04x`, r1, r2)
	}
	return fmt.Appendf(dst, `\u%04x`, r)
}

// hidden reports whether Visible writes r as an escape.
func hidden(r rune) bool {
	return r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || r == '\u2028' || r == '\u2029' || r == utf8.RuneError ||
		unicode.Is(unicode.Cf, r)
}

// VisibleJSON returns the JSON text b with the characters Visible escapes
// written as \uXXXX escapes, but for the line ends between its tokens:
// the same JSON value, which a terminal or a CI log shows without acting
// on it. Outside its strings JSON text holds no such character, and inside
// them an escape means the character itself, so a reader decodes the same
// strings. b must be valid UTF-8, as every text Marshal writes is.
func VisibleJSON(b []byte) []byte {
	i := firstHidden(b)
	if i < 0 {
		return b
	}
	escape := func(r rune) bool { return r != '\n' && hidden(r) }
	out := append(make([]byte, 0, len(b)+64), b[:i]...)
	for _, r := range string(b[i:]) {
		out = appendVisible(out, r, escape)
	}
	return out
}

// firstHidden is the index of the first character of b that VisibleJSON
// escapes, or -1: ASCII, nearly all of a report, is looked at byte by byte.
func firstHidden(b []byte) int {
	for i := 0; i < len(b); {
		if c := b[i]; c < utf8.RuneSelf {
			if c < 0x20 && c != '\n' || c == 0x7f {
				return i
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if hidden(r) {
			return i
		}
		i += n
	}
	return -1
}
