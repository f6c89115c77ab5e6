// Package secret keeps the secrets oracle holds (API keys, the credentials
// of a base URL, the headers a model agent sends) out of everything it
// writes or prints. Whoever holds a secret adds it to the process's set
// (Add); every writer of artifacts and traces passes its JSON through
// Redact, and text through String, which replace each occurrence of a
// secret by "[redacted]" however it is spelled there: as itself,
// JSON-escaped (\u escapes, short escapes, \/ and \" at any depth of
// nesting), percent-encoded, or a mix. In JSON only strings are touched,
// and whole escapes, so JSON stays valid.
//
// A value shorter than MinLength is not kept: removing every "pass" or
// "user" from the artifacts would break them, and so short a value keeps
// nothing secret. A value shorter than AnywhereLength is removed only
// where it stands alone (no letter or digit touches it), so that a short
// password does not eat into the words around it; a longer one, such as
// an API key, wherever it appears.
package secret

import (
	"bytes"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// Lengths, in bytes, that decide how a value is kept (see the package
// comment).
const (
	MinLength      = 8
	AnywhereLength = 16
)

// Mark replaces a secret.
const Mark = "[redacted]"

// Set is a set of secret values, safe for concurrent use. The zero Set
// holds none.
type Set struct {
	mu     sync.Mutex
	seen   map[string]bool
	values atomic.Pointer[compiled]
}

// compiled is the set's values as Redact matches them; it is replaced,
// never changed, when a value is added.
type compiled struct {
	values []value
	// start marks the bytes a match may start with
	start [256]bool
}

type value struct {
	runes    []rune
	anywhere bool
}

// Add adds values to the set. Empty values and values shorter than
// MinLength are ignored.
func (s *Set) Add(values ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var next *compiled
	for _, v := range values {
		if len(v) < MinLength || s.seen[v] || !utf8.ValidString(v) {
			continue
		}
		if s.seen == nil {
			s.seen = map[string]bool{}
		}
		s.seen[v] = true
		if next == nil {
			next = &compiled{}
			if old := s.values.Load(); old != nil {
				*next = *old
				next.values = append([]value(nil), old.values...)
			}
		}
		r := []rune(v)
		next.values = append(next.values, value{runes: r, anywhere: len(v) >= AnywhereLength})
		var first [utf8.UTFMax]byte
		utf8.EncodeRune(first[:], r[0])
		next.start[first[0]] = true
		next.start['%'], next.start['\\'], next.start['+'] = true, true, true
	}
	if next != nil {
		s.values.Store(next)
	}
}

// Empty reports whether the set holds no value.
func (s *Set) Empty() bool { return s.values.Load() == nil }

// Redact returns JSON (a document, or JSON Lines) with every secret of
// the set inside its strings replaced by Mark. It returns b itself when b
// holds none. The JSON stays valid: a match takes whole escapes only.
func (s *Set) Redact(b []byte) []byte { return s.redact(b, true) }

// String returns text with every secret of the set replaced by Mark.
func (s *Set) String(x string) string {
	if s.Empty() {
		return x
	}
	b := []byte(x)
	if r := s.redact(b, false); len(r) != len(b) || len(b) > 0 && &r[0] != &b[0] {
		return string(r)
	}
	return x
}

// redact replaces the secrets in b: in JSON's strings only when inJSON, so
// that the syntax around them is never touched, and anywhere in text.
func (s *Set) redact(b []byte, inJSON bool) []byte {
	c := s.values.Load()
	if c == nil {
		return b
	}
	var out []byte
	done := 0 // b[:done] is in out (or needs no change)
	inString := !inJSON
	for i := 0; i < len(b); i++ {
		ch := b[i]
		if inJSON && !inString {
			inString = ch == '"'
			continue
		}
		if inJSON && ch == '"' {
			inString = false
			continue
		}
		end := -1
		if c.start[ch] {
			for _, v := range c.values {
				if e := match(b, i, v.runes, inJSON); e > end && (v.anywhere || alone(b, i, e)) {
					end = e
				}
			}
		}
		if end < 0 {
			if inJSON && ch == '\\' {
				// step over the escape: what it escapes starts no match
				if i+1 < len(b) && b[i+1] == 'u' {
					i += 5
				} else {
					i++
				}
			}
			continue
		}
		if out == nil {
			out = make([]byte, 0, len(b))
		}
		out = append(out, b[done:i]...)
		out = append(out, Mark...)
		done = end
		i = end - 1
	}
	if out == nil {
		return b
	}
	return append(out, b[done:]...)
}

// alone reports whether b[i:end] is touched by no letter or digit.
func alone(b []byte, i, end int) bool {
	return (i == 0 || !alnum(b[i-1])) && (end == len(b) || !alnum(b[end]))
}

func alnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c >= utf8.RuneSelf
}

// match returns the end of the longest spelling of runes at b[i:], or -1.
// A rune may have several spellings there (a run of backslashes, "%25"):
// every end they reach is followed, once.
func match(b []byte, i int, runes []rune, inJSON bool) int {
	var one, other [8]int
	ends, next := append(one[:0], i), other[:0]
	for _, r := range runes {
		next = next[:0]
		for _, e := range ends {
			var buf [8]int
			for _, n := range spellings(buf[:0], b[e:], r, inJSON) {
				if !slices.Contains(next, e+n) {
					next = append(next, e+n)
				}
			}
		}
		if len(next) == 0 {
			return -1
		}
		ends, next = next, ends
	}
	return slices.Max(ends)
}

// maxBackslashes bounds the run of backslashes an escape may sit behind
// (JSON nested that many levels deep), so that a long run costs no more
// than a short one.
const maxBackslashes = 32

// spellings appends to dst the lengths of the spellings of r at the start
// of b: r itself (in JSON, never a bare quote), + for a space (a URL's
// query), its UTF-8 bytes percent-encoded, a JSON \u escape of it behind
// backslashes (JSON in JSON), the short escape of a control character
// (\n), \" and \/, and for a backslash a run of 1, 2, 4… backslashes
// (escaped at any depth; in JSON at least 2, so that no escape is cut in
// two).
func spellings(dst []int, b []byte, r rune, inJSON bool) []int {
	var enc [utf8.UTFMax]byte
	size := utf8.EncodeRune(enc[:], r)
	if r != '\\' && !(inJSON && r == '"') && bytes.HasPrefix(b, enc[:size]) || r == ' ' && len(b) > 0 && b[0] == '+' {
		dst = append(dst, size)
	}
	if len(b) >= 3*size && b[0] == '%' {
		encoded := true
		for k := range size {
			if b[3*k] != '%' || hexByte(b[3*k+1:3*k+3]) != int(enc[k]) {
				encoded = false
				break
			}
		}
		if encoded {
			dst = append(dst, 3*size)
		}
	}
	k := 0
	for k < len(b) && b[k] == '\\' {
		if k++; k > maxBackslashes {
			return dst
		}
	}
	if k == 0 {
		return dst
	}
	if r == '\\' {
		// a backslash at nesting depth d is 2^d of them
		j := 1
		if inJSON {
			j = 2
		}
		for ; j <= k; j *= 2 {
			dst = append(dst, j)
		}
	}
	rest := b[k:]
	switch {
	case len(rest) > 0 && r == '"' && rest[0] == '"' && (!inJSON || k%2 == 1):
		dst = append(dst, k+1)
	case len(rest) > 0 && r == '/' && rest[0] == '/':
		dst = append(dst, k+1)
	case len(rest) > 0 && r < utf8.RuneSelf && shortEscapes[r] != 0 && rest[0] == shortEscapes[r]:
		dst = append(dst, k+1)
	case len(rest) >= 5 && rest[0] == 'u':
		u := hex4(rest[1:5])
		if u == int(r) {
			dst = append(dst, k+5)
		}
		if r > 0xffff && u >= 0xd800 && u < 0xdc00 {
			// a surrogate pair, the low half behind as many backslashes
			low := rest[5:]
			if len(low) >= k+5 && bytes.Count(low[:k], []byte{'\\'}) == k && low[k] == 'u' {
				if l := hex4(low[k+1 : k+5]); l >= 0xdc00 && l < 0xe000 && 0x10000+(u-0xd800)<<10+(l-0xdc00) == int(r) {
					dst = append(dst, k+5+k+5)
				}
			}
		}
	}
	return dst
}

// shortEscapes are the letters of JSON's escapes of control characters.
var shortEscapes = [utf8.RuneSelf]byte{'\b': 'b', '\f': 'f', '\n': 'n', '\r': 'r', '\t': 't'}

func hexByte(b []byte) int {
	h, l := hexDigit(b[0]), hexDigit(b[1])
	if h < 0 || l < 0 {
		return -1
	}
	return h<<4 | l
}

func hex4(b []byte) int {
	v := 0
	for _, c := range b {
		d := hexDigit(c)
		if d < 0 {
			return -1
		}
		v = v<<4 | d
	}
	return v
}

func hexDigit(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// process is the set of the secrets this process holds.
var process Set

// Add adds values to the secrets of the process, which Redact removes.
func Add(values ...string) { process.Add(values...) }

// Redact returns JSON without the secrets of the process (see
// Set.Redact).
func Redact(b []byte) []byte { return process.Redact(b) }

// String returns text without the secrets of the process.
func String(x string) string { return process.String(x) }

// None reports whether the process holds no secret, so that a writer can
// skip the work of redacting.
func None() bool { return process.Empty() }

// Named reports whether a name (of a variable, a header, a URL's query
// parameter) says that its value is a credential: it holds KEY, TOKEN,
// SECRET, SIG, PASSWORD, PASSWD, AUTH or CREDENTIAL, in any case.
func Named(name string) bool {
	n := strings.ToLower(name)
	for _, w := range []string{"key", "token", "secret", "sig", "password", "passwd", "auth", "credential"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}
