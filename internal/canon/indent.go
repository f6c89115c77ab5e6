package canon

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/agent-oracle/oracle/internal/safeio"
)

// maxDepth is how deeply json.Indent lets arrays and objects nest, as
// AppendIndent refuses what json.Indent refuses.
const maxDepth = safeio.DecoderDepth

// AppendIndent appends src, indented, to dst: byte for byte what
// json.Indent(dst, src, prefix, indent) writes, and an error for the same
// inputs (src not one JSON value with only white space around it, or
// nested deeper than safeio.DecoderDepth, 10,000). On error dst is returned as it was.
//
// It is made for the compact JSON canon writes (Compact, AppendCompact,
// Marshal's first step), which it indents several times faster than
// json.Indent: strings are skipped eight bytes at a time and copied whole,
// the structure is checked token by token rather than byte by byte. Any
// other JSON is indented correctly too, its white space between tokens
// dropped and the white space after the value kept, as json.Indent does.
func AppendIndent(dst, src []byte, prefix, indent string) ([]byte, error) {
	orig := len(dst)
	// line is a newline, the prefix and the indentation of the deepest
	// level so far; a newline at depth d is a prefix of it
	var lineBuf [80]byte
	line := append(append(lineBuf[:0], '\n'), prefix...)
	base := len(line)
	// stack holds the opener of each array and object the value is in
	var stackBuf [32]byte
	stack := stackBuf[:0]
	n := len(src)
	i := skipSpace(src, 0)
	var c byte
	var end int

value: // src[i] should start a value
	if i >= n {
		goto truncated
	}
	switch c = src[i]; c {
	case '"':
		if end = shortStringEnd(src, i); end < 0 {
			if end = longStringEnd(src, i+1); end < 0 {
				goto bad
			}
		}
	case '{', '[':
		if len(stack) == maxDepth {
			return dst[:orig], fmt.Errorf("invalid JSON: nested deeper than %d at offset %d", maxDepth, i)
		}
		if j := skipSpace(src, i+1); j < n && src[j] == c+2 { // {} or []
			dst = append(dst, c, c+2)
			i = j + 1
			goto after
		}
		stack = append(stack, c)
		for want := base + len(stack)*len(indent); len(line) < want; {
			line = append(line, indent...)
		}
		dst = append(append(dst, c), line[:base+len(stack)*len(indent)]...)
		if i = skipSpace(src, i+1); c == '{' {
			goto key
		}
		goto value
	case 't':
		end = literalEnd(src, i, "true")
	case 'f':
		end = literalEnd(src, i, "false")
	case 'n':
		end = literalEnd(src, i, "null")
	default:
		end = numberEnd(src, i)
	}
	if end < 0 {
		goto bad
	}
	dst = append(dst, src[i:end]...)
	i = end

after: // a value ends before src[i]
	if len(stack) == 0 {
		for j := i; j < n; j++ {
			if !isSpace(src[j]) {
				i = j
				goto bad
			}
		}
		return append(dst, src[i:]...), nil
	}
	if i = skipSpace(src, i); i >= n {
		goto truncated
	}
	switch c = src[i]; c {
	case ',':
		dst = append(append(dst, ','), line[:base+len(stack)*len(indent)]...)
		if i = skipSpace(src, i+1); stack[len(stack)-1] == '{' {
			goto key
		}
		goto value
	case stack[len(stack)-1] + 2:
		stack = stack[:len(stack)-1]
		dst = append(append(dst, line[:base+len(stack)*len(indent)]...), c)
		i++
		goto after
	}
	goto bad

key: // src[i] should start a member's name
	if i >= n {
		goto truncated
	}
	if src[i] != '"' {
		goto bad
	}
	if end = shortStringEnd(src, i); end < 0 {
		if end = longStringEnd(src, i+1); end < 0 {
			goto bad
		}
	}
	dst = append(dst, src[i:end]...)
	if i = skipSpace(src, end); i >= n {
		goto truncated
	}
	if src[i] != ':' {
		goto bad
	}
	dst = append(dst, ':', ' ')
	i = skipSpace(src, i+1)
	goto value

truncated:
	return dst[:orig], fmt.Errorf("invalid JSON: unexpected end of input")
bad: // the token at src[i] is not what JSON has there
	return dst[:orig], fmt.Errorf("invalid JSON at offset %d", i)
}

func isSpace(c byte) bool {
	return c <= ' ' && (c == ' ' || c == '\t' || c == '\n' || c == '\r')
}

// skipSpace returns the index of the first byte of src from i on that is
// not white space, or len(src).
func skipSpace(src []byte, i int) int {
	for i < len(src) && isSpace(src[i]) {
		i++
	}
	return i
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// special has the high bit of the lowest byte of x that is a quote, a
// backslash or a control character set (and maybe of bytes above it);
// it is 0 when x has none.
func special(x uint64) uint64 {
	q := x ^ ('"' * ones)
	b := x ^ ('\\' * ones)
	return ((x-0x20*ones)&^x | (q-ones)&^q | (b-ones)&^b) & highs
}

// shortStringEnd returns the index just after the JSON string that starts
// with the quote at src[i] when it is one of the strings most artifacts
// are made of, names and ids: one whose closing quote is the first quote,
// backslash or control character of the nine bytes after the opening one.
// It returns -1 for any other string; longStringEnd tells.
func shortStringEnd(src []byte, i int) int {
	if i+10 <= len(src) {
		// when none of the eight bytes is special, j is the ninth
		m := special(binary.LittleEndian.Uint64(src[i+1:]))
		if j := i + 1 + bits.TrailingZeros64(m)>>3; src[j] == '"' {
			return j + 1
		}
	}
	return -1
}

// longStringEnd returns the index just after the JSON string whose
// opening quote is just before src[i], or -1 when it is not a valid string.
func longStringEnd(src []byte, i int) int {
	for {
		if i+8 <= len(src) {
			m := special(binary.LittleEndian.Uint64(src[i:]))
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) >> 3
		} else {
			for i < len(src) && src[i] >= 0x20 && src[i] != '"' && src[i] != '\\' {
				i++
			}
			if i >= len(src) {
				return -1
			}
		}
		switch src[i] {
		case '"':
			return i + 1
		case '\\':
			if i+1 >= len(src) {
				return -1
			}
			switch src[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(src) || !isHex(src[i+2]) || !isHex(src[i+3]) || !isHex(src[i+4]) || !isHex(src[i+5]) {
					return -1
				}
				i += 6
			default:
				return -1
			}
		default: // a control character
			return -1
		}
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// literalEnd returns the index just after lit, which src holds at i, or -1.
func literalEnd(src []byte, i int, lit string) int {
	if len(src)-i < len(lit) || string(src[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

// numberEnd returns the index just after the JSON number that starts at
// src[i], or -1 when none does.
func numberEnd(src []byte, i int) int {
	if i < len(src) && src[i] == '-' {
		i++
	}
	switch {
	case i >= len(src):
		return -1
	case src[i] == '0':
		i++
	case '1' <= src[i] && src[i] <= '9':
		i = digitsEnd(src, i+1)
	default:
		return -1
	}
	if i < len(src) && src[i] == '.' {
		if i+1 >= len(src) || !isDigit(src[i+1]) {
			return -1
		}
		i = digitsEnd(src, i+2)
	}
	if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
		i++
		if i < len(src) && (src[i] == '+' || src[i] == '-') {
			i++
		}
		if i >= len(src) || !isDigit(src[i]) {
			return -1
		}
		i = digitsEnd(src, i+1)
	}
	return i
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func digitsEnd(src []byte, i int) int {
	for i < len(src) && isDigit(src[i]) {
		i++
	}
	return i
}
