package redact

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A segment of a path: a key or index, *, or **.
type segKind uint8

const (
	segLit  segKind = iota // one key or index, text
	segOne                 // *: any one key or index
	segMany                // **: any number of keys and indices, none included
)

type segment struct {
	kind segKind
	text string // the key, unescaped, of a segLit
}

// parseSelector parses a rule's path.
func parseSelector(p string) ([]segment, error) {
	if p == "" {
		return nil, nil // the whole artifact
	}
	if !utf8.ValidString(p) {
		return nil, errors.New("is not valid UTF-8")
	}
	if p[0] != '/' {
		return nil, fmt.Errorf("%s is not a JSON Pointer: it must be empty (the whole artifact) or start with /; write %s", quote(p), quote("/"+p))
	}
	raw := strings.Split(p[1:], "/")
	if len(raw) > MaxSegments {
		return nil, fmt.Errorf("has %d segments, over the limit of %d; ** matches any number of them", len(raw), MaxSegments)
	}
	segs := make([]segment, len(raw))
	for i, r := range raw {
		switch r {
		case "*":
			segs[i] = segment{kind: segOne}
			continue
		case "**":
			segs[i] = segment{kind: segMany}
			continue
		}
		if strings.Contains(r, "*") {
			return nil, fmt.Errorf("segment %s: * is a wildcard only as a whole segment (* or **); write ~2 for a literal * in a key", quote(r))
		}
		text, err := unescapeSegment(r)
		if err != nil {
			return nil, fmt.Errorf("segment %s: %w", quote(r), err)
		}
		segs[i] = segment{kind: segLit, text: text}
	}
	return segs, nil
}

// unescapeSegment undoes ~0 (~), ~1 (/) and ~2 (*, in a rule's path only).
func unescapeSegment(s string) (string, error) {
	if !strings.Contains(s, "~") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '~' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 == len(s) {
			return "", errors.New("~ must be followed by 0 (for ~), 1 (for /) or 2 (for *)")
		}
		switch s[i+1] {
		case '0':
			b.WriteByte('~')
		case '1':
			b.WriteByte('/')
		case '2':
			b.WriteByte('*')
		default:
			return "", errors.New("~ must be followed by 0 (for ~), 1 (for /) or 2 (for *)")
		}
		i++
	}
	return b.String(), nil
}

// escapeKey writes a key as a segment of an RFC 6901 pointer.
func escapeKey(k string) string {
	if !strings.ContainsAny(k, "~/") {
		return k
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(k)
}

// selectorKey writes a key as a segment of a rule's path: escaped as in a
// pointer, and * as ~2.
func selectorKey(k string) string {
	if !strings.ContainsAny(k, "~/*") {
		return k
	}
	return strings.NewReplacer("~", "~0", "/", "~1", "*", "~2").Replace(k)
}

// splitPointer returns the keys and indices of an RFC 6901 pointer, as
// the Pointer of a Place or a Difference is written.
func splitPointer(p string) []string {
	if p == "" {
		return nil
	}
	parts := strings.Split(p[1:], "/")
	for i, s := range parts {
		if strings.Contains(s, "~") {
			parts[i] = strings.NewReplacer("~1", "/", "~0", "~").Replace(s)
		}
	}
	return parts
}

// states is the set of positions a rule's path can be at, after the keys
// from the artifact's root to one value: bit i set means the first i
// segments have matched. Bit len(segs) set means the path selects the
// value. A path has at most MaxSegments segments, so the set fits.
type states uint64

// closure adds the positions reached by letting a ** match nothing.
func (c *compiled) closure(s states) states {
	for i, seg := range c.segs {
		if s&(1<<i) != 0 && seg.kind == segMany {
			s |= 1 << (i + 1)
		}
	}
	return s
}

// start is where every path is at the artifact's root.
func (c *compiled) start() states { return c.closure(1) }

// selects reports whether the path selects the value s is at.
func (c *compiled) selects(s states) bool { return s&(1<<len(c.segs)) != 0 }

// step is where the path is at a child, named key (an object's key or an
// array's index in decimal), of the value s is at.
func (c *compiled) step(s states, key []byte) states {
	var next states
	for i, seg := range c.segs {
		if s&(1<<i) == 0 {
			continue
		}
		switch seg.kind {
		case segMany:
			next |= 1 << i // ** takes key and stays
		case segOne:
			next |= 1 << (i + 1)
		case segLit:
			if string(key) == seg.text {
				next |= 1 << (i + 1)
			}
		}
	}
	return c.closure(next)
}

// index is the key of an array's element i.
func index(buf []byte, i int) []byte { return strconv.AppendInt(buf[:0], int64(i), 10) }
