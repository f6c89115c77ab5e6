// Package safetext shows text that came from outside the program (an
// agent's answer, a tool's name, input, output or error, a model's reply, a
// check's label or detail, an exec agent's stderr, a path the user gave)
// as text on a terminal or in a CI log: nothing in it can move the cursor,
// set the clipboard, reverse the text that follows, hide itself, start a
// line, or run a CI system's workflow command. Every renderer of text
// writes such strings through String, so that the only control bytes of
// its output are the newlines and colour codes it writes itself.
package safetext

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// String returns s with every character a terminal or a CI log could act
// on, or a reader could not see, written as the escape Go's %q writes for
// it: the C0 and C1 control characters and DEL (a newline is \n, ESC is
// \x1b, NEL is \u0085), the format characters of Unicode (category Cf:
// bidirectional controls such as U+202E, zero-width characters, the
// byte-order mark, tag characters), the line and paragraph separators
// U+2028 and U+2029, the invisible fillers U+034F, U+115F, U+1160, U+17B4,
// U+17B5, U+3164 and U+FFA0, and the noncharacters U+FFFE and U+FFFF
// (which XML forbids); each byte that is not UTF-8 is \xNN. So a string
// holds no line break and no control byte once written, and nothing of it
// can start a line of the output but where the renderer puts it.
//
// One sequence of printable characters is escaped too: Azure Pipelines
// runs a logging command found anywhere in a line (##vso[task.setvariable
// …]), so ##vso[ is written #\x23vso[, in any letter case. GitHub Actions
// runs a workflow command (::error …, ::add-mask::) only at the start of a
// line, which outside text never is. A backslash is left as it is: the
// escapes are for a reader, not for a program to decode.
//
// A string with nothing to escape is returned as it is, without copying.
func String(s string) string {
	i := firstUnsafe(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(`\x`)
			b.WriteString(strconv.FormatUint(uint64(s[i])>>4, 16))
			b.WriteString(strconv.FormatUint(uint64(s[i])&0xf, 16))
		case Unsafe(r):
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		case r == '#' && isVSO(s[i:]):
			b.WriteString(`#\x23`)
			n = 2
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// firstUnsafe is the index of the first byte of s that String changes, or
// -1.
func firstUnsafe(s string) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f || c == '#' && isVSO(s[i:]) {
				return i
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || Unsafe(r) {
			return i
		}
		i += n
	}
	return -1
}

// isVSO reports whether s starts with ##vso[ in any letter case.
func isVSO(s string) bool {
	return len(s) >= 6 && s[:2] == "##" && strings.EqualFold(s[2:5], "vso") && s[5] == '['
}

// Unsafe reports whether String escapes the character r.
func Unsafe(r rune) bool {
	switch {
	case r < 0x20 || r == 0x7f:
		return true
	case r < 0x80:
		return false
	case r <= 0x9f, r == '\u2028', r == '\u2029', r == '\uFFFE', r == '\uFFFF':
		return true
	}
	switch r {
	case '\u034F', '\u115F', '\u1160', '\u17B4', '\u17B5', '\u3164', '\uFFA0':
		return true
	}
	return unicode.Is(unicode.Cf, r)
}

// LineStart is String for a string the caller writes at the start of a
// line (after spaces at most), such as a name heading a list: a leading
// colon or number sign is written \x3a or \x23, so that no GitHub Actions
// workflow command (::error …, ::add-mask::) or Azure Pipelines command
// (##[error], ##vso[…]) can begin the line. Renderers that can put their
// own text first do so instead.
func LineStart(s string) string {
	out := String(s)
	trimmed := strings.TrimLeft(out, " ")
	if trimmed == "" {
		return out
	}
	lead := out[:len(out)-len(trimmed)]
	switch trimmed[0] {
	case ':':
		return lead + `\x3a` + trimmed[1:]
	case '#':
		return lead + `\x23` + trimmed[1:]
	}
	return out
}
