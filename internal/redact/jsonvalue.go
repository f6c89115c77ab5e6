package redact

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/agent-oracle/oracle/internal/canon"
	"github.com/agent-oracle/oracle/internal/jsontok"
	"github.com/agent-oracle/oracle/internal/safeio"
)

// The functions here read compact JSON as canon.Compact writes it: valid,
// without white space between tokens, valid UTF-8. They do not check it
// again.

// compactOf checks that data is one JSON value within safeio's limits and
// returns its compact form.
func compactOf(data []byte) ([]byte, error) {
	if err := safeio.CheckLimits(data); err != nil {
		return nil, fmt.Errorf("the artifact %w", err)
	}
	c, err := canon.Compact(json.RawMessage(data))
	if err != nil {
		// canon's error names a json.RawMessage: this one names the artifact
		return nil, errors.New("the artifact is not valid JSON")
	}
	return c, nil
}

// layout writes compact JSON as the artifacts are written: two-space
// indentation and a trailing newline.
func layout(compact []byte) ([]byte, error) {
	out, err := canon.AppendIndent(make([]byte, 0, len(compact)+len(compact)/2+1), compact, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// valueEnd returns the index just after the value that starts at b[i]
// (len(b) when it is not closed).
func valueEnd(b []byte, i int) int {
	if end := jsontok.CompactValueEnd(b, i); end >= 0 {
		return end
	}
	return len(b)
}

// member is one member of an object, or element of an array (key nil).
type member struct {
	key   []byte // the quoted key, as written
	value []byte
}

// cursor walks the members of an object or the elements of an array, one
// at a time, so that a huge array costs no list of them.
type cursor struct {
	v []byte
	i int // where the next member starts
}

// members returns a cursor on the object or array v; a scalar has none.
func members(v []byte) cursor {
	if len(v) <= 2 || (v[0] != '{' && v[0] != '[') {
		return cursor{}
	}
	return cursor{v: v, i: 1}
}

// next returns the next member, false after the last.
func (c *cursor) next() (member, bool) {
	if c.v == nil || c.i >= len(c.v)-1 {
		return member{}, false
	}
	var m member
	if c.v[0] == '{' {
		end := valueEnd(c.v, c.i)
		m.key = c.v[c.i:end:end]
		c.i = end + 1 // the colon
	}
	end := valueEnd(c.v, c.i)
	m.value = c.v[c.i:end:end]
	c.i = end + 1 // the comma, or the closing bracket
	return m, true
}

// children lists the members of the object or the elements of the array
// v.
func children(v []byte) []member {
	var out []member
	for c := members(v); ; {
		m, ok := c.next()
		if !ok {
			return out
		}
		out = append(out, m)
	}
}

// keyText returns the text of a quoted key; buf may hold it.
func keyText(quoted []byte) []byte {
	inner := quoted[1 : len(quoted)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return inner
	}
	var s string
	if json.Unmarshal(quoted, &s) != nil {
		return inner
	}
	return []byte(s)
}

// stringText returns the text of the JSON string v.
func stringText(v []byte) string {
	inner := v[1 : len(v)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner)
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return string(inner)
	}
	return s
}

// appendString appends s as canon writes a string.
func appendString(dst []byte, s string) []byte {
	out, err := canon.AppendCompact(dst, s)
	if err != nil {
		return strconv.AppendQuote(dst, s) // not reached: a string always encodes
	}
	return out
}

// typeName names the JSON type of the value v.
func typeName(v []byte) string {
	switch v[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// markers are the compact JSON of each type's marker.
var markers = func() map[string][]byte {
	m := map[string][]byte{}
	for _, t := range []string{"string", "number", "boolean", "null", "object", "array"} {
		m[t] = []byte(`"[redacted: ` + t + `]"`)
	}
	return m
}()

// Marker returns the marker a value of the JSON type typ ("string",
// "number", "boolean", "null", "object", "array") is redacted to, as
// compact JSON.
func Marker(typ string) []byte { return bytes.Clone(markers[typ]) }

// isMarker reports whether the JSON value v is a marker.
func isMarker(v []byte) bool {
	return len(v) > 2 && v[0] == '"' && isMarkerText(string(v[1:len(v)-1]))
}

// isMarkerText reports whether s is the text of a marker.
func isMarkerText(s string) bool {
	if len(s) < 14 || s[0] != '[' {
		return false
	}
	for _, m := range markers {
		if string(m[1:len(m)-1]) == s {
			return true
		}
	}
	return false
}

// lookupAll returns the values at the pointers in the compact value v, a
// nil one where there is none, reading v once: the pointers' keys make a
// tree, and only the members on it are visited. A key an object gives
// more than once is its first.
func lookupAll(v []byte, pointers []string) [][]byte {
	root := &keyTree{}
	for i, p := range pointers {
		n := root
		for _, k := range splitPointer(p) {
			n = n.child(k)
		}
		n.ends = append(n.ends, i)
	}
	out := make([][]byte, len(pointers))
	root.collect(v, out)
	return out
}

// keyTree is the keys of a set of pointers, merged where they share a
// beginning.
type keyTree struct {
	kids map[string]*keyTree
	ends []int // the pointers that end here
}

func (t *keyTree) child(k string) *keyTree {
	if t.kids == nil {
		t.kids = map[string]*keyTree{}
	}
	n := t.kids[k]
	if n == nil {
		n = &keyTree{}
		t.kids[k] = n
	}
	return n
}

// collect sets out for the pointers that end at t or below, v being the
// value t stands for.
func (t *keyTree) collect(v []byte, out [][]byte) {
	for _, i := range t.ends {
		out[i] = v
	}
	if len(t.kids) == 0 || len(v) == 0 {
		return
	}
	seen := map[string]bool{}
	var buf []byte
	c := members(v)
	for i := 0; len(seen) < len(t.kids); i++ {
		m, ok := c.next()
		if !ok {
			return
		}
		key := m.key
		if key == nil {
			buf = index(buf, i)
			key = buf
		} else {
			key = keyText(key)
		}
		if kid := t.kids[string(key)]; kid != nil && !seen[string(key)] {
			seen[string(key)] = true
			kid.collect(m.value, out)
		}
	}
}

// lookup returns the value at the pointer's keys in the compact value v,
// or nil when there is none.
func lookup(v []byte, keys []string) []byte {
	at := make([]pathSeg, len(keys))
	for i, k := range keys {
		at[i].text = k
	}
	return lookupAll(v, []string{pointerOf(at)})[0]
}
