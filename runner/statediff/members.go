package statediff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/agent-oracle/oracle/internal/jsontok"
)

// Splitting a state into its top-level values and its collections into
// members, in one validating pass over each state. The state after is
// scanned with the state before as a guide: a value or member whose bytes
// are those of its counterpart before is compared with one memcmp and not
// scanned again (the bytes before are valid, so the same bytes are too).

// topValue is a top-level value of a state.
type topValue struct {
	raw    []byte
	list   []entry // an array's or object's members, in the order written
	kind   byte    // '[' or '{' when list holds the members, 0 otherwise
	coll   bool    // an array whose items are all objects with a string id
	sorted bool    // list is sorted by id without repeats
	same   bool    // raw is the state before's value for the same key
}

// entry is one member of a collection: its id (an object's key or an
// item's "id") and its raw value.
type entry struct {
	id  []byte // the id's text, decoded
	raw []byte
}

// lists lends member lists from a pool, so that diffing states of the same
// size again allocates none; release gives them back. With own set it
// makes lists that are never given back.
type lists struct {
	taken []*[]entry
	own   bool
}

var listPool = sync.Pool{New: func() any { return new([]entry) }}

func (l *lists) get(capacity int) []entry {
	if l.own {
		return make([]entry, 0, capacity)
	}
	p := listPool.Get().(*[]entry)
	l.taken = append(l.taken, p)
	if cap(*p) < capacity {
		*p = make([]entry, 0, capacity)
	}
	return (*p)[:0]
}

// keep records list, grown from one that get returned, for release.
func (l *lists) keep(list []entry) {
	if !l.own && len(l.taken) > 0 {
		*l.taken[len(l.taken)-1] = list
	}
}

// release gives the lists back, cleared as far as they were filled (the
// pool must not keep the states alive), so that a small diff after a large
// one does not clear the large one's capacity.
func (l *lists) release() {
	for _, p := range l.taken {
		clear(*p)
		*p = (*p)[:0]
		listPool.Put(p)
	}
	l.taken = nil
}

// topLevel splits a state into its top-level values in one validating pass.
// guide, when not nil, is the state before.
func (l *lists) topLevel(data []byte, guide map[string]topValue) (map[string]topValue, error) {
	i := jsontok.SkipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return nil, fmt.Errorf("not a JSON object")
	}
	out := map[string]topValue{}
	end, err := l.walkTop(data, i, out, guide)
	if err == nil && jsontok.SkipSpace(data, end) != len(data) {
		err = errScan
	}
	if err != nil {
		// the scanner only knows that the JSON is malformed; encoding/json
		// says where and why
		var v any
		if uerr := json.Unmarshal(data, &v); uerr != nil {
			return nil, uerr
		}
		return nil, err
	}
	return out, nil
}

// walkTop scans the object at data[i] into out and returns the index after
// it. A later duplicate key wins, as encoding/json decides.
func (l *lists) walkTop(data []byte, i int, out, guide map[string]topValue) (int, error) {
	i = jsontok.SkipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return 0, errScan
		}
		kend, escaped, err := skipString(data, i)
		if err != nil {
			return 0, err
		}
		key, err := decodeText(data[i:kend], escaped)
		if err != nil {
			return 0, err
		}
		i = jsontok.SkipSpace(data, kend)
		if i >= len(data) || data[i] != ':' {
			return 0, errScan
		}
		i = jsontok.SkipSpace(data, i+1)
		g, guided := guide[string(key)]
		var v topValue
		vend, same := 0, false
		if guided {
			vend, same = sameValue(data, i, g.raw)
		}
		switch {
		case same:
			v = topValue{raw: data[i:vend], same: true}
		case i < len(data) && data[i] == '[':
			v, err = l.array(data, i, g)
		case i < len(data) && data[i] == '{':
			v, err = l.object(data, i, g)
		default:
			if vend, err = scanValue(data, i, 1); err == nil {
				v = topValue{raw: data[i:vend]}
			}
		}
		if err != nil {
			return 0, err
		}
		out[string(key)] = v
		i = jsontok.SkipSpace(data, i+len(v.raw))
		if i < len(data) && data[i] == ',' {
			i = jsontok.SkipSpace(data, i+1)
			continue
		}
		if i < len(data) && data[i] == '}' {
			return i + 1, nil
		}
		return 0, errScan
	}
}

// guideList returns the members of g to guide the scan of a value of the
// given kind.
func guideList(g topValue, kind byte) []entry {
	if g.kind == kind {
		return g.list
	}
	return nil
}

// array scans the top-level array at data[i] and lists its items as
// members by id; coll is false when an item is not an object with a string
// id (the array is then scanned to its end all the same). Repeated ids are
// found when the list is sorted.
func (l *lists) array(data []byte, i int, g topValue) (topValue, error) {
	const depth = 2
	start := i
	guide := guideList(g, '[')
	list := l.get(len(guide))
	coll := true
	k := 0 // the guide's member expected next
	i = jsontok.SkipSpace(data, i+1)
	if i < len(data) && data[i] == ']' {
		return topValue{raw: data[start : i+1], list: list, kind: '[', coll: true, sorted: true}, nil
	}
	for {
		var end int
		var err error
		same := false
		if coll && k < len(guide) {
			if end, same = sameValue(data, i, guide[k].raw); same {
				list = append(list, entry{guide[k].id, data[i:end]})
				k++
			}
		}
		switch {
		case same:
		case coll && i < len(data) && data[i] == '{':
			var id []byte
			var found bool
			if end, id, found, err = objectID(data, i, depth+1); err != nil {
				return topValue{}, err
			}
			if found {
				list = append(list, entry{id, data[i:end]})
				k = resync(guide, k, id, g.sorted)
			} else {
				coll = false
			}
		default:
			coll = false
			if end, err = scanValue(data, i, depth); err != nil {
				return topValue{}, err
			}
		}
		i = jsontok.SkipSpace(data, end)
		if i < len(data) && data[i] == ',' {
			i = jsontok.SkipSpace(data, i+1)
			continue
		}
		if i < len(data) && data[i] == ']' {
			break
		}
		return topValue{}, errScan
	}
	l.keep(list)
	v := topValue{raw: data[start : i+1], kind: '['}
	if coll {
		v.list, v.coll, v.sorted = list, true, isSorted(list)
	}
	return v, nil
}

// object scans the top-level object at data[i] and lists its members by
// key.
func (l *lists) object(data []byte, i int, g topValue) (topValue, error) {
	const depth = 2
	start := i
	guide := guideList(g, '{')
	list := l.get(len(guide))
	k := 0
	i = jsontok.SkipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return topValue{raw: data[start : i+1], list: list, kind: '{', sorted: true}, nil
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return topValue{}, errScan
		}
		kend, escaped, err := skipString(data, i)
		if err != nil {
			return topValue{}, err
		}
		key, err := decodeText(data[i:kend], escaped)
		if err != nil {
			return topValue{}, err
		}
		i = jsontok.SkipSpace(data, kend)
		if i >= len(data) || data[i] != ':' {
			return topValue{}, errScan
		}
		i = jsontok.SkipSpace(data, i+1)
		end, same := 0, false
		if k < len(guide) && bytes.Equal(guide[k].id, key) {
			if end, same = sameValue(data, i, guide[k].raw); same {
				k++
			}
		}
		if !same {
			if end, err = scanValue(data, i, depth); err != nil {
				return topValue{}, err
			}
			k = resync(guide, k, key, g.sorted)
		}
		list = append(list, entry{key, data[i:end]})
		i = jsontok.SkipSpace(data, end)
		if i < len(data) && data[i] == ',' {
			i = jsontok.SkipSpace(data, i+1)
			continue
		}
		if i < len(data) && data[i] == '}' {
			break
		}
		return topValue{}, errScan
	}
	l.keep(list)
	return topValue{raw: data[start : i+1], list: list, kind: '{', sorted: isSorted(list)}, nil
}

// resync returns the guide's member expected after the member id: the one
// after k when k is id (a member changed in place), else the one after id
// found by binary search in a sorted guide (members added or removed
// before it); k when id is not in the guide (a member added).
func resync(guide []entry, k int, id []byte, sorted bool) int {
	if k < len(guide) && bytes.Equal(guide[k].id, id) {
		return k + 1
	}
	if sorted {
		if j, ok := slices.BinarySearchFunc(guide, id, func(e entry, id []byte) int { return bytes.Compare(e.id, id) }); ok {
			return j + 1
		}
	}
	return k
}

func isSorted(list []entry) bool {
	for i := 1; i < len(list); i++ {
		if bytes.Compare(list[i-1].id, list[i].id) >= 0 {
			return false
		}
	}
	return true
}

// members returns v's members sorted by id, or false when v is not a
// collection: an array with two items of the same id. Of an object's
// members with the same key the last wins, as encoding/json decides.
func (v topValue) members() ([]entry, bool) {
	if v.kind == 0 || v.kind == '[' && !v.coll {
		return nil, false
	}
	if v.sorted {
		return v.list, true
	}
	list := v.list // v may be a kept scan, read only
	order := sortOrder(len(list), func(i, j int) int { return bytes.Compare(list[i].id, list[j].id) })
	out := make([]entry, 0, len(list))
	for k, i := range order {
		if k+1 < len(order) && bytes.Equal(list[order[k+1]].id, list[i].id) {
			if v.kind == '[' {
				return nil, false
			}
			continue
		}
		out = append(out, list[i])
	}
	return out, true
}

// sortOrder returns the indices 0 to n-1 in the order cmp gives, stably:
// sorting indices moves no pointers.
func sortOrder(n int, cmp func(i, j int) int) []int32 {
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int { return cmp(int(a), int(b)) })
	return order
}
