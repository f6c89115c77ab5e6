package statediff

import (
	"sort"
	"strconv"
	"strings"

	"github.com/agent-oracle/oracle/internal/canon"
)

// reference computes the diff the slow, obvious way, from the package's
// contract: both states decoded with encoding/json (numbers kept as
// written), collections and members found in the decoded values, leaves
// compared by their canonical text. The fuzz and table tests check that
// Compute gives the same bytes.
func reference(before, after []byte) (*Diff, error) {
	va, err := canon.Decode(before)
	if err != nil {
		return nil, err
	}
	vb, err := canon.Decode(after)
	if err != nil {
		return nil, err
	}
	a, aok := va.(map[string]any)
	b, bok := vb.(map[string]any)
	if !aok || !bok {
		return nil, errScan
	}
	d := &Diff{Scalars: []Change{}, Collections: map[string]*Collection{}}
	for _, key := range refKeys(a, b) {
		x, xok := a[key]
		y, yok := b[key]
		if xok && yok {
			mx, cx := refMembers(x)
			my, cy := refMembers(y)
			_, ox := x.(map[string]any)
			_, oy := y.(map[string]any)
			if cx && cy && ox == oy {
				if c := refCollection(mx, my); c != nil {
					d.Collections[key] = c
				}
				continue
			}
		}
		from, to := refCanonical(x, xok), refCanonical(y, yok)
		if xok == yok && string(from) == string(to) {
			continue
		}
		c := Change{Field: key, Op: Replace, From: from, To: to}
		switch {
		case !xok:
			c.Op = Add
		case !yok:
			c.Op = Remove
		}
		d.Scalars = append(d.Scalars, c)
	}
	return d, nil
}

// refMembers returns a collection's members by id: an object's values by
// key, or the items of an array of objects with unique string ids.
func refMembers(v any) (map[string]any, bool) {
	switch c := v.(type) {
	case map[string]any:
		return c, true
	case []any:
		m := map[string]any{}
		for _, item := range c {
			o, ok := item.(map[string]any)
			if !ok {
				return nil, false
			}
			id, ok := o["id"].(string)
			if !ok {
				return nil, false
			}
			if _, dup := m[id]; dup {
				return nil, false
			}
			m[id] = o
		}
		return m, true
	}
	return nil, false
}

func refCollection(a, b map[string]any) *Collection {
	c := &Collection{Added: []Member{}, Removed: []Member{}, Changed: []Changed{}}
	for _, id := range refKeys(a, b) {
		x, xok := a[id]
		y, yok := b[id]
		switch {
		case !yok:
			c.Removed = append(c.Removed, Member{ID: id, Value: refCanonical(x, true)})
		case !xok:
			c.Added = append(c.Added, Member{ID: id, Value: refCanonical(y, true)})
		default:
			var changes []Change
			refValues(&changes, "", x, y, true, true)
			if len(changes) > 0 {
				c.Changed = append(c.Changed, Changed{ID: id, Changes: changes})
			}
		}
	}
	if len(c.Added)+len(c.Removed)+len(c.Changed) == 0 {
		return nil
	}
	return c
}

func refValues(out *[]Change, path string, a, b any, aok, bok bool) {
	switch {
	case !aok && !bok:
		return
	case !aok:
		*out = append(*out, Change{Path: path, Op: Add, To: refCanonical(b, true)})
		return
	case !bok:
		*out = append(*out, Change{Path: path, Op: Remove, From: refCanonical(a, true)})
		return
	}
	switch x := a.(type) {
	case map[string]any:
		if y, ok := b.(map[string]any); ok {
			for _, k := range refKeys(x, y) {
				vx, okx := x[k]
				vy, oky := y[k]
				refValues(out, path+"/"+strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1"), vx, vy, okx, oky)
			}
			return
		}
	case []any:
		if y, ok := b.([]any); ok {
			for i := 0; i < max(len(x), len(y)); i++ {
				var vx, vy any
				if i < len(x) {
					vx = x[i]
				}
				if i < len(y) {
					vy = y[i]
				}
				refValues(out, path+"/"+strconv.Itoa(i), vx, vy, i < len(x), i < len(y))
			}
			return
		}
	}
	ca, cb := refCanonical(a, true), refCanonical(b, true)
	if string(ca) != string(cb) {
		*out = append(*out, Change{Path: path, Op: Replace, From: ca, To: cb})
	}
}

func refCanonical(v any, present bool) []byte {
	if !present {
		return nil
	}
	out, err := canon.Compact(v)
	if err != nil {
		panic(err)
	}
	return out
}

// refKeys returns the keys of a and b, sorted.
func refKeys(a, b map[string]any) []string {
	var keys []string
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
