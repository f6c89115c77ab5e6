package statediff

import (
	"bytes"
	"encoding/json"
	"slices"
	"unicode/utf8"

	"github.com/agent-oracle/oracle/internal/canon"
	"github.com/agent-oracle/oracle/internal/jsontok"
)

// The canonical form of a value is what canon.Compact writes for it once
// decoded with canon.Decode: compact, object keys sorted (the last of
// repeated keys wins), numbers as written, strings as encoding/json writes
// them. It is written here from the valid bytes, without decoding; only a
// string with an escape or invalid UTF-8 goes through encoding/json.

// arena holds the canonical bytes of every value a diff reports, so that
// the diff owns them (it keeps nothing of the states) in few allocations.
type arena struct{ buf []byte }

// canonical returns the canonical form of the valid value v.
func (a *arena) canonical(v []byte) json.RawMessage {
	start := len(a.buf)
	a.buf = appendCanonical(a.buf, v)
	return a.buf[start:len(a.buf):len(a.buf)]
}

// drop forgets what canonical returned from start on.
func (a *arena) drop(start int) { a.buf = a.buf[:start] }

// appendCanonical appends the canonical form of the valid value v.
func appendCanonical(dst, v []byte) []byte {
	dst, _ = canonValue(dst, v, 0)
	return dst
}

// canonValue appends the canonical form of the valid value at v[i] and
// returns the index after it, in one pass: each byte of v is read once
// and written at most twice, whatever the nesting.
func canonValue(dst, v []byte, i int) ([]byte, int) {
	switch v[i] {
	case '{':
		return canonObject(dst, v, i)
	case '[':
		dst = append(dst, '[')
		i = jsontok.SkipSpace(v, i+1)
		if v[i] == ']' {
			return append(dst, ']'), i + 1
		}
		for {
			dst, i = canonValue(dst, v, i)
			i = jsontok.SkipSpace(v, i)
			if v[i] != ',' {
				return append(dst, ']'), i + 1
			}
			dst = append(dst, ',')
			i = jsontok.SkipSpace(v, i+1)
		}
	case '"':
		end, _, _ := skipString(v, i)
		return appendString(dst, v[i:end]), end
	case 't', 'n':
		return append(dst, v[i:i+4]...), i + 4
	case 'f':
		return append(dst, v[i:i+5]...), i + 5
	}
	end, _ := skipNumber(v, i)
	return append(dst, v[i:end]...), end // as written
}

// canonObject writes the members of the object at v[i] as they come, each
// after a comma but the first; when their keys are not in order it sorts
// what it wrote.
func canonObject(dst, v []byte, i int) ([]byte, int) {
	type member struct {
		key        []byte // decoded
		start, end int    // "key":value in dst, from base
	}
	dst = append(dst, '{')
	base := len(dst)
	// a small object's lists stay on the stack
	var small [8]member
	list := small[:0]
	sorted := true
	i = jsontok.SkipSpace(v, i+1)
	for v[i] != '}' {
		kend, escaped, _ := skipString(v, i)
		key, _ := decodeText(v[i:kend], escaped)
		if len(list) > 0 {
			dst = append(dst, ',')
			sorted = sorted && bytes.Compare(list[len(list)-1].key, key) < 0
		}
		m := member{key: key, start: len(dst) - base}
		dst = appendString(dst, v[i:kend])
		dst = append(dst, ':')
		i = jsontok.SkipSpace(v, jsontok.SkipSpace(v, kend)+1)
		dst, i = canonValue(dst, v, i)
		m.end = len(dst) - base
		list = append(list, m)
		i = jsontok.SkipSpace(v, i)
		if v[i] == ',' {
			i = jsontok.SkipSpace(v, i+1)
		}
	}
	if !sorted {
		var smallWritten [256]byte
		written := append(smallWritten[:0], dst[base:]...)
		dst = dst[:base]
		var smallOrder [len(small)]int32
		order := smallOrder[:0]
		for k := range list {
			order = append(order, int32(k))
		}
		slices.SortStableFunc(order, func(i, j int32) int { return bytes.Compare(list[i].key, list[j].key) })
		first := true
		for k, j := range order {
			if k+1 < len(order) && bytes.Equal(list[order[k+1]].key, list[j].key) {
				continue // the last wins
			}
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = append(dst, written[list[j].start:list[j].end]...)
		}
	}
	return append(dst, '}'), i + 1
}

// appendString appends the canonical form of the valid JSON string s.
func appendString(dst, s []byte) []byte {
	text := s[1 : len(s)-1]
	if bytes.IndexByte(text, '\\') < 0 && utf8.Valid(text) {
		return append(dst, s...)
	}
	var str string
	if err := json.Unmarshal(s, &str); err != nil {
		return append(dst, s...)
	}
	out, err := canon.Compact(str)
	if err != nil {
		return append(dst, s...)
	}
	return append(dst, out...)
}
