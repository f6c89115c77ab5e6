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
package statediff

import (
	"bytes"
	"encoding/json"
	"fmt"
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
		av, aok := a[key]
		bv, bok := b[key]
		if aok && bok {
			am, aColl := members(av)
			bm, bColl := members(bv)
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

func topLevel(data []byte) (map[string]json.RawMessage, error) {
	if t := bytes.TrimSpace(data); len(t) == 0 || t[0] != '{' {
		return nil, fmt.Errorf("not a JSON object")
	}
	if !json.Valid(data) {
		var v any
		return nil, json.Unmarshal(data, &v)
	}
	return objectMap(data)
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

// members returns a collection's members by id, or false when v is not a
// collection.
func members(v json.RawMessage) (map[string]json.RawMessage, bool) {
	t := bytes.TrimSpace(v)
	if len(t) == 0 {
		return nil, false
	}
	switch t[0] {
	case '{':
		m, err := objectMap(t)
		return m, err == nil
	case '[':
		m := map[string]json.RawMessage{}
		err := eachItem(t, func(item []byte) error {
			if item[0] != '{' {
				return errScan
			}
			id, ok := stringID(item)
			if !ok {
				return errScan
			}
			if _, dup := m[id]; dup {
				return errScan
			}
			m[id] = item
			return nil
		})
		return m, err == nil
	}
	return nil, false
}

func diffCollection(a, b map[string]json.RawMessage) (*Collection, error) {
	c := &Collection{Added: []Member{}, Removed: []Member{}, Changed: []Changed{}}
	for _, id := range unionKeys(a, b) {
		av, aok := a[id]
		bv, bok := b[id]
		switch {
		case !aok:
			c.Added = append(c.Added, Member{ID: id, Value: canonical(bv, true)})
		case !bok:
			c.Removed = append(c.Removed, Member{ID: id, Value: canonical(av, true)})
		case bytes.Equal(av, bv):
		default:
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
