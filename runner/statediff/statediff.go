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
// changed; and speed, since a state is diffed after every rollout: at 100k
// entities the scanner took 269 ms where the decode-and-compare it replaced
// took 761, and it now validates and diffs in a single pass.
package statediff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/agent-oracle/oracle/internal/canon"
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
	a, err := topLevel(before)
	if err != nil {
		return nil, fmt.Errorf("state before: %w", err)
	}
	b, err := topLevel(after)
	if err != nil {
		return nil, fmt.Errorf("state after: %w", err)
	}
	d := &Diff{Scalars: []Change{}, Collections: map[string]*Collection{}}
	for _, key := range unionKeys(a, b) {
		at, aok := a[key]
		bt, bok := b[key]
		av, bv := at.raw, bt.raw
		if aok && bok {
			am, aColl := at.members()
			bm, bColl := bt.members()
			if aColl && bColl && kindOf(av) == kindOf(bv) {
				c, err := diffCollection(am, bm)
				if err != nil {
					return nil, fmt.Errorf("collection %s: %w", key, err)
				}
				if c != nil {
					d.Collections[key] = c
				}
				continue
			}
		}
		from, to := canonical(av, aok), canonical(bv, bok)
		if aok == bok && bytes.Equal(from, to) {
			continue
		}
		// a scalar is reported whole: the top-level value before and after
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

// Marshal writes the diff as state-diff.json bytes.
func (d *Diff) Marshal() ([]byte, error) { return canon.Marshal(d) }

// topValue is a top-level value of a state; an array's members by id are
// found as the array is scanned.
type topValue struct {
	raw   json.RawMessage
	list  []entry // an array's members, sorted by id
	array bool    // raw is an array scanned for members
	coll  bool    // the array is a collection
}

// members returns the value's members sorted by id, or false when it is not
// a collection.
func (v topValue) members() ([]entry, bool) {
	if v.array {
		return v.list, v.coll
	}
	return members(v.raw)
}

// topLevel splits a state into its top-level values in one validating pass.
func topLevel(data []byte) (map[string]topValue, error) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return nil, fmt.Errorf("not a JSON object")
	}
	out := map[string]topValue{}
	end, err := walkTop(data, i, out)
	if err == nil && skipSpace(data, end) != len(data) {
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
func walkTop(data []byte, i int, out map[string]topValue) (int, error) {
	i = skipSpace(data, i+1)
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
		key, err := decodeKey(data[i:kend], escaped)
		if err != nil {
			return 0, err
		}
		i = skipSpace(data, kend)
		if i >= len(data) || data[i] != ':' {
			return 0, errScan
		}
		i = skipSpace(data, i+1)
		var v topValue
		var vend int
		if i < len(data) && data[i] == '[' {
			var list []entry
			var ok bool
			if vend, list, ok, err = arrayMembers(data, i, 2); err != nil {
				return 0, err
			}
			v = topValue{raw: data[i:vend], list: list, array: true, coll: ok}
		} else {
			if vend, err = scanValue(data, i, 1); err != nil {
				return 0, err
			}
			v = topValue{raw: data[i:vend]}
		}
		out[key] = v
		i = skipSpace(data, vend)
		if i < len(data) && data[i] == ',' {
			i = skipSpace(data, i+1)
			continue
		}
		if i < len(data) && data[i] == '}' {
			return i + 1, nil
		}
		return 0, errScan
	}
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

// entry is one member of a collection: its id and its raw value.
type entry struct {
	id  []byte // the id's text, decoded
	raw []byte
}

// members returns a collection's members sorted by id, or false when v is
// not a collection. Each member is scanned once: its id is found while the
// scanner walks over it.
func members(v json.RawMessage) ([]entry, bool) {
	t := bytes.TrimSpace(v)
	if len(t) == 0 {
		return nil, false
	}
	switch t[0] {
	case '{':
		var list []entry
		err := eachMember(t, func(k string, v []byte) error {
			list = append(list, entry{[]byte(k), v})
			return nil
		})
		if err != nil {
			return nil, false
		}
		// a later duplicate key wins, as encoding/json decides
		return sortEntries(list, true), true
	case '[':
		end, list, ok, err := arrayMembers(t, 0, 1)
		if err != nil || !ok || skipSpace(t, end) != len(t) {
			return nil, false
		}
		return list, true
	}
	return nil, false
}

// sortEntries sorts list by id, stably (a no-op when it is sorted already,
// as the states of most environments are). Members with the same id keep
// the last when lastWins is set; otherwise they make the result nil.
func sortEntries(list []entry, lastWins bool) []entry {
	if list == nil {
		list = []entry{}
	}
	sorted := true
	for i := 1; i < len(list); i++ {
		if bytes.Compare(list[i-1].id, list[i].id) >= 0 {
			sorted = false
			break
		}
	}
	if sorted {
		return list
	}
	slices.SortStableFunc(list, func(a, b entry) int { return bytes.Compare(a.id, b.id) })
	out := list[:0]
	for i, m := range list {
		if i+1 < len(list) && bytes.Equal(list[i+1].id, m.id) {
			if !lastWins {
				return nil
			}
			continue
		}
		out = append(out, m)
	}
	return out
}

// diffCollection merges two id-sorted member lists.
func diffCollection(a, b []entry) (*Collection, error) {
	c := &Collection{Added: []Member{}, Removed: []Member{}, Changed: []Changed{}}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || i < len(a) && bytes.Compare(a[i].id, b[j].id) < 0:
			c.Removed = append(c.Removed, Member{ID: string(a[i].id), Value: canonical(a[i].raw, true)})
			i++
		case i == len(a) || bytes.Compare(b[j].id, a[i].id) < 0:
			c.Added = append(c.Added, Member{ID: string(b[j].id), Value: canonical(b[j].raw, true)})
			j++
		default:
			id, av, bv := string(a[i].id), a[i].raw, b[j].raw
			i, j = i+1, j+1
			if bytes.Equal(av, bv) {
				continue
			}
			var changes []Change
			if err := diffValues(&changes, "", av, bv, true, true); err != nil {
				return nil, fmt.Errorf("member %s: %w", id, err)
			}
			if len(changes) > 0 {
				c.Changed = append(c.Changed, Changed{ID: id, Changes: changes})
			}
		}
	}
	if len(c.Added)+len(c.Removed)+len(c.Changed) == 0 {
		return nil, nil
	}
	return c, nil
}

// diffValues appends the changes between two raw values at path.
func diffValues(out *[]Change, path string, a, b json.RawMessage, aok, bok bool) error {
	switch {
	case !aok && !bok:
		return nil
	case !aok:
		*out = append(*out, Change{Path: path, Op: Add, To: canonical(b, true)})
		return nil
	case !bok:
		*out = append(*out, Change{Path: path, Op: Remove, From: canonical(a, true)})
		return nil
	}
	if bytes.Equal(a, b) {
		return nil
	}
	ka, kb := kindOf(a), kindOf(b)
	switch {
	case ka == '{' && kb == '{':
		ma, err := objectMap(a)
		if err != nil {
			return err
		}
		mb, err := objectMap(b)
		if err != nil {
			return err
		}
		for _, k := range unionKeys(ma, mb) {
			av, aok := ma[k]
			bv, bok := mb[k]
			if err := diffValues(out, path+"/"+escape(k), av, bv, aok, bok); err != nil {
				return err
			}
		}
		return nil
	case ka == '[' && kb == '[':
		la, err := arrayItems(a)
		if err != nil {
			return err
		}
		lb, err := arrayItems(b)
		if err != nil {
			return err
		}
		for i := 0; i < max(len(la), len(lb)); i++ {
			var av, bv json.RawMessage
			if i < len(la) {
				av = la[i]
			}
			if i < len(lb) {
				bv = lb[i]
			}
			if err := diffValues(out, path+"/"+strconv.Itoa(i), av, bv, i < len(la), i < len(lb)); err != nil {
				return err
			}
		}
		return nil
	}
	ca, cb := canonical(a, true), canonical(b, true)
	if !bytes.Equal(ca, cb) {
		*out = append(*out, Change{Path: path, Op: Replace, From: ca, To: cb})
	}
	return nil
}

func kindOf(v json.RawMessage) byte {
	t := bytes.TrimSpace(v)
	if len(t) == 0 {
		return 0
	}
	return t[0]
}

// canonical returns v in canonical compact form: object keys sorted,
// numbers as written. Absent values give nil.
func canonical(v json.RawMessage, present bool) json.RawMessage {
	if !present {
		return nil
	}
	x, err := canon.Decode(v)
	if err != nil {
		return v
	}
	out, err := canon.Compact(x)
	if err != nil {
		return v
	}
	return out
}

// escape encodes a key as a JSON Pointer reference token (RFC 6901).
func escape(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

func arrayItems(b []byte) ([]json.RawMessage, error) {
	var out []json.RawMessage
	err := eachItem(b, func(item []byte) error {
		out = append(out, item)
		return nil
	})
	return out, err
}
