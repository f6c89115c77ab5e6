package statediff

import (
	"bytes"
	"slices"

	"github.com/agent-oracle/oracle/internal/jsontok"
)

// tree indexes the objects and arrays of one member's valid value by where
// they start, so that the diff steps over a nested value with one lookup
// instead of scanning it again at every level it descends through: the
// diff of a member stays linear in its size however deep its nesting.
type tree struct {
	root   []byte
	starts []int // the offset in root of each object and array, in order
	ends   []int // the offset after each
	stack  []int
	built  bool
	free   [][]entry // lists of object given back, for reuse
}

func (t *tree) reset(root []byte) {
	t.root, t.starts, t.ends, t.built = root, t.starts[:0], t.ends[:0], false
}

func (t *tree) build() {
	b := t.root
	t.stack = t.stack[:0]
	for i := 0; i < len(b); {
		switch b[i] {
		case '"':
			end, _, err := skipString(b, i)
			if err != nil {
				return
			}
			i = end
			continue
		case '{', '[':
			t.stack = append(t.stack, len(t.starts))
			t.starts = append(t.starts, i)
			t.ends = append(t.ends, 0)
		case '}', ']':
			if len(t.stack) > 0 {
				t.ends[t.stack[len(t.stack)-1]] = i + 1
				t.stack = t.stack[:len(t.stack)-1]
			}
		}
		i++
	}
	t.built = true
}

// end returns the index after the value at v[i], v being a value inside
// the root (sliced from it).
func (t *tree) end(v []byte, i int) int {
	if c := v[i]; c == '{' || c == '[' {
		if !t.built {
			t.build()
		}
		if off := cap(t.root) - cap(v) + i; 0 <= off && off < len(t.root) {
			if k, ok := slices.BinarySearch(t.starts, off); ok && t.ends[k] > off {
				return t.ends[k] - off + i
			}
		}
	}
	end, _ := scanValue(v, i, 0)
	return end
}

// members returns the members of the valid object v as they come. The
// list is the tree's until put gives it back.
func (t *tree) members(v []byte) []entry {
	var list []entry
	if n := len(t.free); n > 0 {
		list, t.free = t.free[n-1], t.free[:n-1]
	}
	i := jsontok.SkipSpace(v, 1)
	for i < len(v) && v[i] == '"' {
		kend, escaped, _ := skipString(v, i)
		key, _ := decodeText(v[i:kend], escaped)
		i = jsontok.SkipSpace(v, jsontok.SkipSpace(v, kend)+1)
		end := t.end(v, i)
		list = append(list, entry{key, v[i:end]})
		i = jsontok.SkipSpace(v, end)
		if i < len(v) && v[i] == ',' {
			i = jsontok.SkipSpace(v, i+1)
		}
	}
	return list
}

// sorted sorts the members of an object by key, in place, the last of
// repeated keys winning.
func sorted(list []entry) []entry {
	if isSorted(list) {
		return list
	}
	slices.SortStableFunc(list, func(a, b entry) int { return bytes.Compare(a.id, b.id) })
	// of repeated keys, the last (stable: the last given) stays
	out := list[:0]
	for k := range list {
		if k+1 < len(list) && bytes.Equal(list[k+1].id, list[k].id) {
			continue
		}
		out = append(out, list[k])
	}
	clear(list[len(out):])
	return out
}

// put gives back a list object returned, for the next object to fill.
func (t *tree) put(list []entry) {
	clear(list)
	t.free = append(t.free, list[:0])
}

// items returns the items of the valid array v.
func (t *tree) items(v []byte) [][]byte {
	var list [][]byte
	i := jsontok.SkipSpace(v, 1)
	for i < len(v) && v[i] != ']' {
		end := t.end(v, i)
		list = append(list, v[i:end])
		i = jsontok.SkipSpace(v, end)
		if i < len(v) && v[i] == ',' {
			i = jsontok.SkipSpace(v, i+1)
		}
	}
	return list
}
