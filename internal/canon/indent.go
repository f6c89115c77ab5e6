package canon

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/agent-oracle/oracle/internal/jsontok"
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
	i := jsontok.SkipSpace(src, 0)
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
		if j := jsontok.SkipSpace(src, i+1); j < n && src[j] == c+2 { // {} or []
			dst = append(dst, c, c+2)
			i = j + 1
			goto after
		}
		stack = append(stack, c)
		for want := base + len(stack)*len(indent); len(line) < want; {
			line = append(line, indent...)
		}
		dst = append(append(dst, c), line[:base+len(stack)*len(indent)]...)
		if i = jsontok.SkipSpace(src, i+1); c == '{' {
			goto key
		}
		goto value
	case 't':
		end = jsontok.LiteralEnd(src, i, "true")
	case 'f':
		end = jsontok.LiteralEnd(src, i, "false")
	case 'n':
		end = jsontok.LiteralEnd(src, i, "null")
	default:
		end = jsontok.NumberEnd(src, i)
	}
	if end < 0 {
		goto bad
	}
	dst = append(dst, src[i:end]...)
	i = end

after: // a value ends before src[i]
	if len(stack) == 0 {
		for j := i; j < n; j++ {
			if !jsontok.IsSpace(src[j]) {
				i = j
				goto bad
			}
		}
		return append(dst, src[i:]...), nil
	}
	if i = jsontok.SkipSpace(src, i); i >= n {
		goto truncated
	}
	switch c = src[i]; c {
	case ',':
		dst = append(append(dst, ','), line[:base+len(stack)*len(indent)]...)
		if i = jsontok.SkipSpace(src, i+1); stack[len(stack)-1] == '{' {
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
	if i = jsontok.SkipSpace(src, end); i >= n {
		goto truncated
	}
	if src[i] != ':' {
		goto bad
	}
	dst = append(dst, ':', ' ')
	i = jsontok.SkipSpace(src, i+1)
	goto value

truncated:
	return dst[:orig], fmt.Errorf("invalid JSON: unexpected end of input")
bad: // the token at src[i] is not what JSON has there
	return dst[:orig], fmt.Errorf("invalid JSON at offset %d", i)
}

// shortStringEnd returns the index just after the JSON string that starts
// with the quote at src[i] when it is one of the strings most artifacts
// are made of, names and ids: one whose closing quote is the first quote,
// backslash or control character of the nine bytes after the opening one.
// It returns -1 for any other string; longStringEnd tells.
func shortStringEnd(src []byte, i int) int {
	if i+10 <= len(src) {
		// when none of the eight bytes is special, j is the ninth
		m := jsontok.Special(binary.LittleEndian.Uint64(src[i+1:]))
		if j := i + 1 + bits.TrailingZeros64(m)>>3; src[j] == '"' {
			return j + 1
		}
	}
	return -1
}

// longStringEnd returns the index just after the JSON string whose
// opening quote is just before src[i], or -1 when it is not a valid string.
func longStringEnd(src []byte, i int) int {
	end, _ := jsontok.StringEnd(src, i-1)
	return end
}
