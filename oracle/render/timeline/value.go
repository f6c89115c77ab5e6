package timeline

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agent-oracle/oracle/internal/jsontok"
)

// The page's bounds: one value shows at most maxValue bytes, and the values
// of one page together at most pageBudget; once that is spent each further
// value shows at most minValue. A value longer than foldLines lines or
// foldBytes bytes is folded. A cut value says where it was cut and where
// the whole of it is.
const (
	maxValue   = 16 << 10
	minValue   = 1 << 10
	pageBudget = 8 << 20
	foldLines  = 8
	foldBytes  = 480
)

// shown is a value as the page shows it: its text, with the characters a
// reader cannot see (controls, bidirectional overrides, zero-width marks)
// named, cut to the page's bounds.
type shown struct {
	Pieces []piece
	// Cut says how much was left out and where the whole value is; ""
	// when nothing was.
	Cut string
	// Long is set for a value that is folded.
	Long bool
	// Size is how long the whole value is, for the folded value's summary.
	Size string
}

// piece is a run of text, or one invisible character named (Esc).
type piece struct {
	Text string
	Esc  bool
}

// Empty reports whether the value shows nothing.
func (s shown) Empty() bool { return len(s.Pieces) == 0 && s.Cut == "" }

// cutter cuts the values of one page to its bounds.
type cutter struct{ left int }

func newCutter() *cutter { return &cutter{left: pageBudget} }

// limit is how many bytes the next value may show.
func (c *cutter) limit() int {
	if c.left < minValue {
		return minValue
	}
	return min(maxValue, c.left)
}

// text shows s, a text (an answer, an instruction, a message); where names
// the file that holds the whole of it.
func (c *cutter) text(s, where string) shown {
	n := c.limit()
	return c.finish(cutAt(s, n), len(s), len(s) > n, where)
}

// json shows a JSON value: a string as its text, anything else indented.
// Bytes that are not JSON are shown as they are.
func (c *cutter) json(raw json.RawMessage, where string) shown {
	return c.jsonUpTo(raw, c.limit(), where)
}

// preview shows at most n bytes of a JSON value, as json does.
func (c *cutter) preview(raw json.RawMessage, n int, where string) shown {
	return c.jsonUpTo(raw, min(n, c.limit()), where)
}

func (c *cutter) jsonUpTo(raw json.RawMessage, n int, where string) shown {
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return c.finish(cutAt(s, n), len(s), len(s) > n, where)
		}
	}
	head, cut := indentHead(raw, n)
	return c.finish(head, len(raw), cut, where)
}

// compact shows a JSON value on one line as it is written (strings
// quoted), for the two sides of a state-diff change.
func (c *cutter) compact(raw json.RawMessage, where string) shown {
	n := c.limit()
	return c.finish(cutAt(string(raw), n), len(raw), len(raw) > n, where)
}

// finish makes the shown value of head, the beginning of a value of
// total bytes (all of it unless cut), and charges the page's budget.
func (c *cutter) finish(head string, total int, cut bool, where string) shown {
	c.left -= len(head)
	s := shown{Pieces: visible(head), Size: size(total)}
	if cut {
		s.Cut = fmt.Sprintf("cut: %s of %s shown; the whole value is in %s", size(len(head)), size(total), where)
	}
	s.Long = len(head) > foldBytes || strings.Count(head, "\n") >= foldLines
	return s
}

// cutAt returns the first n bytes of s, or fewer so as not to split a
// character.
func cutAt(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// indentHead writes a JSON value indented by two spaces, stopping at
// limit bytes, and says whether it stopped before the end. It works on any
// bytes: outside strings it breaks lines at brackets and commas, and keeps
// an empty object or array on one line.
func indentHead(raw []byte, limit int) (string, bool) {
	var b strings.Builder
	depth := 0
	inString, escaped := false, false
	newline := func() {
		b.WriteByte('\n')
		for range depth {
			b.WriteString("  ")
		}
	}
	for i := 0; i < len(raw); i++ {
		if b.Len() > limit {
			return cutAt(b.String(), limit), true
		}
		ch := raw[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case ch == '\\':
				escaped = true
			case ch == '"':
				inString = false
			}
			b.WriteByte(ch)
			continue
		}
		switch ch {
		case '"':
			inString = true
			b.WriteByte(ch)
		case '{', '[':
			if j := jsontok.SkipSpace(raw, i+1); j < len(raw) && (raw[j] == '}' || raw[j] == ']') {
				b.WriteByte(ch)
				b.WriteByte(raw[j])
				i = j
				continue
			}
			b.WriteByte(ch)
			depth++
			newline()
		case '}', ']':
			depth = max(depth-1, 0)
			newline()
			b.WriteByte(ch)
		case ',':
			b.WriteByte(ch)
			newline()
		case ':':
			b.WriteString(": ")
		case ' ', '\t', '\n', '\r':
		default:
			b.WriteByte(ch)
		}
	}
	if b.Len() > limit {
		return cutAt(b.String(), limit), true
	}
	return b.String(), false
}

// visible splits s into text and the characters a reader would not see or
// that would change how the text around them reads: controls other than
// newline and tab, format characters (bidirectional overrides and
// isolates, zero-width marks, the byte order mark), line and paragraph
// separators, and bytes that are not UTF-8. Each of those is a piece of
// its own that names it (U+202E).
func visible(s string) []piece {
	var out []piece
	start := 0
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		bad := r == utf8.RuneError && n == 1
		if bad || invisible(r) {
			if start < i {
				out = append(out, piece{Text: s[start:i]})
			}
			name := fmt.Sprintf("U+%04X", r)
			if bad {
				name = fmt.Sprintf("byte %#02x", s[i])
			}
			out = append(out, piece{Text: name, Esc: true})
			start = i + n
		}
		i += n
	}
	if start < len(s) {
		out = append(out, piece{Text: s[start:]})
	}
	return out
}

func invisible(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0:
		return true
	case r == '\u2028' || r == '\u2029':
		return true
	}
	return unicode.Is(unicode.Cf, r)
}

// size says how long a value is: bytes, KiB or MiB.
func size(n int) string {
	switch {
	case n < 1<<10:
		if n == 1 {
			return "1 byte"
		}
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
