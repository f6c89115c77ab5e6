// Package jsontok holds the pieces of JSON's grammar that oracle's fast
// readers share: white space, strings (eight bytes at a time while none
// needs a look), numbers and literals, each returning the index just after
// what it read, or -1 where the bytes are not valid JSON there. The readers
// (canon's indenter, the state diff's scanner, the typed input decoder,
// the timeline's preview) build on them instead of scanning bytes of their
// own; each keeps its own rules for what it does with a value.
package jsontok

import (
	"encoding/binary"
	"math/bits"
)

// IsSpace reports whether c is JSON white space.
func IsSpace(c byte) bool {
	return c <= ' ' && (c == ' ' || c == '\t' || c == '\n' || c == '\r')
}

// SkipSpace returns the index of the first byte of b from i on that is not
// white space, or len(b).
func SkipSpace(b []byte, i int) int {
	for i < len(b) && IsSpace(b[i]) {
		i++
	}
	return i
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// Special has the high bit of the lowest byte of x (eight bytes of a
// string, little-endian) that is a quote, a backslash or a control
// character set, and maybe of bytes above it; it is 0 when x has none.
func Special(x uint64) uint64 {
	q := x ^ ('"' * ones)
	b := x ^ ('\\' * ones)
	return ((x-0x20*ones)&^x | (q-ones)&^q | (b-ones)&^b) & highs
}

// StringEnd returns the index just after the JSON string whose opening
// quote is b[i], and whether it holds an escape; -1 when it is not a valid
// string (an unknown escape, a control character, no closing quote). It
// does not check UTF-8.
func StringEnd(b []byte, i int) (int, bool) {
	escaped := false
	j := i + 1
	for {
		if j+8 <= len(b) {
			m := Special(binary.LittleEndian.Uint64(b[j:]))
			if m == 0 {
				j += 8
				continue
			}
			j += bits.TrailingZeros64(m) >> 3
		} else {
			for j < len(b) && b[j] >= 0x20 && b[j] != '"' && b[j] != '\\' {
				j++
			}
			if j >= len(b) {
				return -1, false
			}
		}
		switch b[j] {
		case '"':
			return j + 1, escaped
		case '\\':
			escaped = true
			if j+1 >= len(b) {
				return -1, false
			}
			switch b[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j += 2
			case 'u':
				if j+6 > len(b) || !IsHex(b[j+2]) || !IsHex(b[j+3]) || !IsHex(b[j+4]) || !IsHex(b[j+5]) {
					return -1, false
				}
				j += 6
			default:
				return -1, false
			}
		default: // a control character
			return -1, false
		}
	}
}

// IsHex reports whether c is a hexadecimal digit.
func IsHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// IsDigit reports whether c is a decimal digit.
func IsDigit(c byte) bool { return '0' <= c && c <= '9' }

func digitsEnd(b []byte, i int) int {
	for i < len(b) && IsDigit(b[i]) {
		i++
	}
	return i
}

// NumberEnd returns the index just after the JSON number that starts at
// b[i], or -1 when none does.
func NumberEnd(b []byte, i int) int {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return -1
	case b[i] == '0':
		i++
	case '1' <= b[i] && b[i] <= '9':
		i = digitsEnd(b, i+1)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		if i+1 >= len(b) || !IsDigit(b[i+1]) {
			return -1
		}
		i = digitsEnd(b, i+2)
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !IsDigit(b[i]) {
			return -1
		}
		i = digitsEnd(b, i+1)
	}
	return i
}

// LiteralEnd returns the index just after lit (true, false or null) when b
// holds it at i, or -1.
func LiteralEnd(b []byte, i int, lit string) int {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

// CompactValueEnd returns the index just after the value at b[i] of
// compact JSON that is known to be valid (written by oracle's own
// encoders), or -1 when there is none: a string is skipped with StringEnd,
// an object or array by counting its brackets outside strings, a number or
// a literal up to the next delimiter. It checks nothing else.
func CompactValueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		end, _ := StringEnd(b, i)
		return end
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, _ := StringEnd(b, j)
				if end < 0 {
					return -1
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ':' {
		j++
	}
	if j == i {
		return -1
	}
	return j
}
