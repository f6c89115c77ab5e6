package change

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"
)

// Invisible is a difference of bytes that does not change the JSON value,
// named with where it is and what kind it is, so that a reader of two
// identical-looking sides knows what to look for.
type Invisible struct {
	// Path is the JSON Pointer of the value concerned; "" for the whole
	// file.
	Path string `json:"path,omitempty"`
	// Kind is one of: byte-order mark, CRLF line ends, final newline,
	// trailing spaces, spacing, escaping, key order, duplicate key, and of
	// a state diff, whose members and field changes are matched by id and
	// path, member order, field change order, scalar order.
	Kind string `json:"kind"`
	// Detail says it in a sentence.
	Detail string `json:"detail"`
}

// String is the difference as a report line.
func (i Invisible) String() string {
	if i.Path == "" {
		return i.Detail
	}
	return i.Path + ": " + i.Detail
}

// invisibleDifferences names the byte-level properties of the whole files
// that differ and that a reader of the two texts would not see.
func invisibleDifferences(a, b []byte) []Invisible {
	var out []Invisible
	props := []struct {
		name string
		has  func([]byte) bool
	}{
		{"byte-order mark", func(d []byte) bool { return bytes.HasPrefix(d, []byte("\xef\xbb\xbf")) }},
		{"CRLF line ends", func(d []byte) bool { return bytes.Contains(d, []byte("\r\n")) }},
		{"final newline", func(d []byte) bool { return bytes.HasSuffix(d, []byte("\n")) }},
		{"trailing spaces", hasTrailingSpaces},
	}
	for _, p := range props {
		ha, hb := p.has(a), p.has(b)
		switch {
		case ha && !hb:
			out = append(out, Invisible{Kind: p.name, Detail: p.name + " only in the old file"})
		case !ha && hb:
			out = append(out, Invisible{Kind: p.name, Detail: p.name + " only in the new file"})
		}
	}
	return out
}

func hasTrailingSpaces(d []byte) bool {
	for _, line := range bytes.Split(d, []byte("\n")) {
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) > 0 && (line[len(line)-1] == ' ' || line[len(line)-1] == '\t') {
			return true
		}
	}
	return false
}

// hiddenDifferences walks two JSON texts side by side and names, with their
// path, the differences inside them that do not change the value: keys in
// another order, a key given twice, a string escaped another way, other
// spacing. Spacing is not named when spacedAlready (CRLF or trailing spaces
// already explain it). Both texts must be valid JSON.
func hiddenDifferences(a, b []byte, spacedAlready bool) []Invisible {
	na, nb := parseRaw(a), parseRaw(b)
	if na == nil || nb == nil {
		return nil
	}
	w := &hiddenWalk{spacing: spacedAlready}
	w.walk("", na, nb)
	return w.out
}

type hiddenWalk struct {
	out     []Invisible
	spacing bool // a spacing difference was named already
}

func (w *hiddenWalk) spaced(path string, a, b []byte) {
	if w.spacing || bytes.Equal(a, b) {
		return
	}
	w.spacing = true
	w.out = append(w.out, Invisible{Path: path, Kind: "spacing", Detail: "indentation or spacing changed"})
}

func (w *hiddenWalk) walk(path string, a, b *rawNode) {
	w.spaced(path, a.pre, b.pre)
	if a.kind != b.kind {
		return
	}
	switch a.kind {
	case '{':
		if w.duplicates(path, a, b) {
			w.spacing = true // the duplicate explains the other spacing
		}
		ka, kb := a.order(), b.order()
		if sameSet(ka, kb) && !equalStrings(ka, kb) {
			w.out = append(w.out, Invisible{Path: path, Kind: "key order",
				Detail: fmt.Sprintf("key order changed (%s → %s)", strings.Join(ka, ", "), strings.Join(kb, ", "))})
		}
		for _, k := range ka {
			va, rka := a.last(k)
			vb, rkb := b.last(k)
			if vb == nil {
				w.oneSided(path+"/"+escapePointer(k), va, "old")
				continue
			}
			sub := path + "/" + escapePointer(k)
			if !bytes.Equal(rka, rkb) {
				if d, ok := escapingChange(rka, rkb); ok {
					w.out = append(w.out, Invisible{Path: sub, Kind: "escaping", Detail: "key: " + d})
				}
			}
			w.walk(sub, va, vb)
		}
		for _, k := range kb {
			if v, _ := a.last(k); v == nil {
				v, _ = b.last(k)
				w.oneSided(path+"/"+escapePointer(k), v, "new")
			}
		}
		if len(ka) > 0 && len(kb) > 0 {
			w.spaced(path, a.end, b.end)
		}
	case '[':
		for i := 0; i < max(len(a.vals), len(b.vals)); i++ {
			sub := fmt.Sprintf("%s/%d", path, i)
			switch {
			case i >= len(a.vals):
				w.oneSided(sub, b.vals[i], "new")
			case i >= len(b.vals):
				w.oneSided(sub, a.vals[i], "old")
			default:
				w.walk(sub, a.vals[i], b.vals[i])
			}
		}
		if len(a.vals) > 0 && len(b.vals) > 0 {
			w.spaced(path, a.end, b.end)
		}
	case '"':
		if bytes.Equal(a.raw, b.raw) {
			return
		}
		if d, ok := escapingChange(a.raw, b.raw); ok {
			w.out = append(w.out, Invisible{Path: path, Kind: "escaping", Detail: d})
		}
	}
}

// duplicates names a key given twice in an object on one side only: the
// reader sees two values and JSON keeps the last one. It reports whether it
// named one.
func (w *hiddenWalk) duplicates(path string, a, b *rawNode) bool {
	da, db := a.duplicated(), b.duplicated()
	named := false
	for _, side := range []struct {
		dups, other map[string]bool
		file        string
	}{{da, db, "old"}, {db, da, "new"}} {
		for _, k := range slices.Sorted(maps.Keys(side.dups)) {
			if !side.other[k] {
				w.duplicate(path, k, side.file)
				named = true
			}
		}
	}
	return named
}

func (w *hiddenWalk) duplicate(path, key, file string) {
	where := path
	if where == "" {
		where = "the top-level object"
	}
	w.out = append(w.out, Invisible{Path: path, Kind: "duplicate key",
		Detail: fmt.Sprintf("duplicate key %q in %s of the %s file (JSON keeps its last value)", key, where, file)})
}

// oneSided names the duplicate keys inside a value only one file has.
func (w *hiddenWalk) oneSided(path string, n *rawNode, file string) {
	switch n.kind {
	case '{':
		for _, k := range slices.Sorted(maps.Keys(n.duplicated())) {
			w.duplicate(path, k, file)
		}
		for _, k := range n.order() {
			v, _ := n.last(k)
			w.oneSided(path+"/"+escapePointer(k), v, file)
		}
	case '[':
		for i, v := range n.vals {
			w.oneSided(fmt.Sprintf("%s/%d", path, i), v, file)
		}
	}
}

// escapingChange names the first character two raw JSON strings with the
// same value write differently.
func escapingChange(a, b []byte) (string, bool) {
	ua, ub := stringUnits(a), stringUnits(b)
	for i := 0; i < min(len(ua), len(ub)); i++ {
		if ua[i].raw == ub[i].raw {
			continue
		}
		if ua[i].char != ub[i].char {
			return "", false
		}
		return fmt.Sprintf("escaping of %q changed (%s → %s)", ua[i].char, ua[i].raw, ub[i].raw), true
	}
	return "", false
}

type strUnit struct{ raw, char string }

// stringUnits cuts a raw JSON string token into characters, each with how
// it is written.
func stringUnits(tok []byte) []strUnit {
	s := string(tok)
	if len(s) < 2 {
		return nil
	}
	s = s[1 : len(s)-1]
	var out []strUnit
	for len(s) > 0 {
		n := 1
		switch {
		case s[0] == '\\' && len(s) >= 12 && s[1] == 'u' && s[6] == '\\' && s[7] == 'u' && isSurrogate(s[2:6]):
			n = 12
		case s[0] == '\\' && len(s) >= 6 && s[1] == 'u':
			n = 6
		case s[0] == '\\' && len(s) >= 2:
			n = 2
		default:
			_, n = utf8.DecodeRuneInString(s)
		}
		raw := s[:n]
		var char string
		if json.Unmarshal([]byte(`"`+raw+`"`), &char) != nil {
			char = raw
		}
		out = append(out, strUnit{raw: raw, char: char})
		s = s[n:]
	}
	return out
}

func isSurrogate(hex string) bool {
	h := strings.ToLower(hex)
	return len(h) == 4 && h[0] == 'd' && h[1] >= '8' && h[1] <= 'b'
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	set := map[string]bool{}
	for _, k := range a {
		set[k] = true
	}
	for _, k := range b {
		if !set[k] {
			return false
		}
	}
	return true
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func escapePointer(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}
