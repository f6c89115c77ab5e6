// Package statediff computes the deep, canonical difference between two
// states of an environment, as written to state-diff.json.
//
// A top-level key whose value is an object, or an array of objects each with
// a unique string "id", is a collection: its members are compared by id (the
// object's keys, or the members' ids). Anything else is a scalar. Every
// changed member carries its field-level changes as JSON Pointer paths with
// the values before and after; added and removed members carry their value.
// Collection names, ids and paths are sorted and collections without changes
// are left out, so two runs of the same behaviour give the same bytes.
//
// It is a hand-written scanner over the JSON bytes rather than a generic
// JSON diff such as jsondiff for two reasons: members are matched by id
// where a generic diff gives positional array paths (/contacts/3 instead of
// the contact C-3), so one inserted member would show as every later one
// changed; and speed, since a state is diffed after every rollout. Each
// state is read once: the state before is validated and split into
// members (an index of ids and byte ranges over the input, with no map and
// no copy per member), then the state after is scanned with it as a guide:
// a top-level value or member whose bytes are those of the one expected
// there is matched with one memcmp, neither scanned nor decoded again. Only
// members that differ are split further, and what the diff reports is
// written in canonical form straight from the bytes. As every rollout of a
// task starts from the same state, the scans of the last states before
// seen more than once are kept (see seen.go).
package statediff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"sync"
)

// Diff is the content of state-diff.json.
type Diff struct {
	Scalars     []Change               `json:"scalars"`
	Collections map[string]*Collection `json:"collections"`
}

// Collection lists the members of one collection that were added, removed
// or changed, sorted by id.
type Collection struct {
	Added   []Member  `json:"added"`
	Removed []Member  `json:"removed"`
	Changed []Changed `json:"changed"`
}

// Member is an added or removed member with its value.
type Member struct {
	ID    string          `json:"id"`
	Value json.RawMessage `json:"value"`
}

// Changed is a member present on both sides whose value differs.
type Changed struct {
	ID      string   `json:"id"`
	Changes []Change `json:"changes"`
}

// Op names what happened at a path.
type Op string

const (
	Add     Op = "add"
	Remove  Op = "remove"
	Replace Op = "replace"
)

// Change is one difference. For a scalar, Field names the top-level key;
// inside a member, Path is a JSON Pointer relative to the member ("" for the
// member's whole value). From is absent for an addition and To for a
// removal; a change to null has To null.
type Change struct {
	Field string          `json:"field,omitempty"`
	Path  string          `json:"path,omitempty"`
	Op    Op              `json:"op"`
	From  json.RawMessage `json:"from,omitempty"`
	To    json.RawMessage `json:"to,omitempty"`
}

// Empty reports whether the diff records no change.
func (d *Diff) Empty() bool { return len(d.Scalars) == 0 && len(d.Collections) == 0 }

// Compute diffs two states, each the JSON of an object.
func Compute(before, after []byte) (*Diff, error) {
	var l lists
	defer l.release()
	a, err := l.scanBefore(before)
	if err != nil {
		return nil, fmt.Errorf("state before: %w", err)
	}
	b, err := l.topLevel(after, a)
	if err != nil {
		return nil, fmt.Errorf("state after: %w", err)
	}
	w := differ{scratch: scratchPool.Get().(*scratch)}
	defer w.release()
	d := &Diff{Scalars: []Change{}, Collections: map[string]*Collection{}}
	for _, key := range unionKeys(a, b) {
		at, aok := a[key]
		bt, bok := b[key]
		if aok && bok {
			if bt.same {
				continue
			}
			am, aColl := at.members()
			bm, bColl := bt.members()
			if aColl && bColl && at.kind == bt.kind {
				if c := w.collection(am, bm); c != nil {
					d.Collections[key] = c
				}
				continue
			}
		}
		// a scalar is reported whole: the top-level value before and after
		mark := len(w.arena.buf)
		from, to := w.canonical(at.raw, aok), w.canonical(bt.raw, bok)
		if aok == bok && bytes.Equal(from, to) {
			w.arena.drop(mark)
			continue
		}
		c := Change{Field: key, Op: Replace, From: from, To: to}
		switch {
		case !aok:
			c.Op = Add
		case !bok:
			c.Op = Remove
		}
		d.Scalars = append(d.Scalars, c)
	}
	return d, nil
}

func unionKeys[V any](a, b map[string]V) []string {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

// differ compares members; what it reports is written to its arena.
type differ struct {
	arena arena
	*scratch
}

// scratch is what one diff uses and the next reuses: none of it reaches a
// Diff.
type scratch struct {
	path   []byte // the JSON Pointer of the value being compared
	ta, tb tree   // the member being compared, before and after
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// release gives the scratch back, holding nothing of the states diffed.
func (w *differ) release() {
	s := w.scratch
	w.scratch = nil
	s.path = s.path[:0]
	s.ta.reset(nil)
	s.tb.reset(nil)
	scratchPool.Put(s)
}

func (w *differ) canonical(v []byte, present bool) json.RawMessage {
	if !present {
		return nil
	}
	return w.arena.canonical(v)
}

// collection merges two id-sorted member lists.
func (w *differ) collection(a, b []entry) *Collection {
	c := &Collection{Added: []Member{}, Removed: []Member{}, Changed: []Changed{}}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || i < len(a) && bytes.Compare(a[i].id, b[j].id) < 0:
			c.Removed = append(c.Removed, Member{ID: string(a[i].id), Value: w.arena.canonical(a[i].raw)})
			i++
		case i == len(a) || bytes.Compare(b[j].id, a[i].id) < 0:
			c.Added = append(c.Added, Member{ID: string(b[j].id), Value: w.arena.canonical(b[j].raw)})
			j++
		default:
			av, bv := a[i].raw, b[j].raw
			i, j = i+1, j+1
			if bytes.Equal(av, bv) {
				continue
			}
			var changes []Change
			w.ta.reset(av)
			w.tb.reset(bv)
			w.values(&changes, av, bv, true, true)
			if len(changes) > 0 {
				c.Changed = append(c.Changed, Changed{ID: string(a[i-1].id), Changes: changes})
			}
		}
	}
	if len(c.Added)+len(c.Removed)+len(c.Changed) == 0 {
		return nil
	}
	return c
}

// values appends the changes between two raw values at w.path, a inside
// w.ta's member and b inside w.tb's.
func (w *differ) values(out *[]Change, a, b []byte, aok, bok bool) {
	switch {
	case !aok && !bok:
		return
	case !aok:
		*out = append(*out, Change{Path: string(w.path), Op: Add, To: w.arena.canonical(b)})
		return
	case !bok:
		*out = append(*out, Change{Path: string(w.path), Op: Remove, From: w.arena.canonical(a)})
		return
	}
	if bytes.Equal(a, b) {
		return
	}
	switch {
	case a[0] == '{' && b[0] == '{':
		ma, mb := w.ta.members(a), w.tb.members(b)
		if sameKeys(ma, mb) {
			w.alike(out, ma, mb)
			w.ta.put(ma)
			w.tb.put(mb)
			return
		}
		ma, mb = sorted(ma), sorted(mb)
		i, j := 0, 0
		for i < len(ma) || j < len(mb) {
			var key, av, bv []byte
			aok, bok := false, false
			switch {
			case j == len(mb) || i < len(ma) && bytes.Compare(ma[i].id, mb[j].id) < 0:
				key, av, aok = ma[i].id, ma[i].raw, true
				i++
			case i == len(ma) || bytes.Compare(mb[j].id, ma[i].id) < 0:
				key, bv, bok = mb[j].id, mb[j].raw, true
				j++
			default:
				key, av, bv, aok, bok = ma[i].id, ma[i].raw, mb[j].raw, true, true
				i, j = i+1, j+1
				if bytes.Equal(av, bv) {
					continue
				}
			}
			w.at(escape(key), out, av, bv, aok, bok)
		}
		w.ta.put(ma)
		w.tb.put(mb)
		return
	case a[0] == '[' && b[0] == '[':
		la, lb := w.ta.items(a), w.tb.items(b)
		for i := 0; i < max(len(la), len(lb)); i++ {
			var av, bv []byte
			if i < len(la) {
				av = la[i]
			}
			if i < len(lb) {
				bv = lb[i]
			}
			if i < len(la) && i < len(lb) && bytes.Equal(av, bv) {
				continue
			}
			w.at(strconv.AppendInt(nil, int64(i), 10), out, av, bv, i < len(la), i < len(lb))
		}
		return
	}
	mark := len(w.arena.buf)
	ca, cb := w.arena.canonical(a), w.arena.canonical(b)
	if bytes.Equal(ca, cb) {
		w.arena.drop(mark)
		return
	}
	*out = append(*out, Change{Path: string(w.path), Op: Replace, From: ca, To: cb})
}

// alike appends the changes between the members of two objects whose keys
// come in the same order, as two values of one type are written: the
// members are paired by place, and only the few that differ are taken in
// key order, with no sort of all the keys. Of repeated keys the last wins.
func (w *differ) alike(out *[]Change, a, b []entry) {
	var small [8]int
	differ := small[:0]
	for k := range a {
		if !bytes.Equal(a[k].raw, b[k].raw) && !repeatedAfter(a, k) {
			differ = append(differ, k)
		}
	}
	slices.SortFunc(differ, func(i, j int) int { return bytes.Compare(a[i].id, a[j].id) })
	for _, k := range differ {
		w.at(escape(a[k].id), out, a[k].raw, b[k].raw, true, true)
	}
}

// sameKeys reports whether two objects' members have the same keys in the
// same order.
func sameKeys(a, b []entry) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !bytes.Equal(a[k].id, b[k].id) {
			return false
		}
	}
	return true
}

// repeatedAfter reports whether the key of list[k] comes again later.
func repeatedAfter(list []entry, k int) bool {
	for _, e := range list[k+1:] {
		if bytes.Equal(e.id, list[k].id) {
			return true
		}
	}
	return false
}

// at compares two values at the reference token tok under w.path.
func (w *differ) at(tok []byte, out *[]Change, a, b []byte, aok, bok bool) {
	n := len(w.path)
	w.path = append(append(w.path, '/'), tok...)
	w.values(out, a, b, aok, bok)
	w.path = w.path[:n]
}

// escape encodes a key as a JSON Pointer reference token (RFC 6901).
func escape(k []byte) []byte {
	if bytes.IndexByte(k, '~') < 0 && bytes.IndexByte(k, '/') < 0 {
		return k
	}
	k = bytes.ReplaceAll(k, []byte("~"), []byte("~0"))
	return bytes.ReplaceAll(k, []byte("/"), []byte("~1"))
}
