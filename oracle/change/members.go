package change

import (
	"bytes"
	"cmp"
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/agent-oracle/oracle/internal/artifact"
	"github.com/agent-oracle/oracle/runner/statediff"
)

// MemberDiff is how one member of a state-diff.json collection (or one
// scalar) differs between the baseline's state diff and the fresh one:
// which list of the collection it is in on each side (added, removed,
// changed, or none) and how its field changes or its value differ.
type MemberDiff struct {
	// Collection is the collection's name; "" for a scalar, whose field
	// name is ID.
	Collection string `json:"collection,omitempty"`
	ID         string `json:"id"`
	// Was and Now name the list the member is in, in the baseline and in
	// the fresh run: "added", "removed", "changed" or "" for none.
	Was string `json:"was,omitempty"`
	Now string `json:"now,omitempty"`
	// Fields are the member's field changes matched by path (a scalar's
	// change has path ""), those that differ only.
	Fields []FieldDiff `json:"fields,omitempty"`
	// OldValue and NewValue are the value of a member added or removed on
	// one side only.
	OldValue json.RawMessage `json:"oldValue,omitempty"`
	NewValue json.RawMessage `json:"newValue,omitempty"`
	// Value is the difference of the value of a member added (or removed)
	// on both sides, paths relative to the member.
	Value []Change `json:"value,omitempty"`
}

// What says in words how the member moved: "now changed", "no longer
// added", "changed differently", "was added, now changed".
func (m MemberDiff) What() string {
	switch {
	case m.Was == "":
		return "now " + m.Now
	case m.Now == "":
		return "no longer " + m.Was
	case m.Was == m.Now:
		return m.Now + " differently"
	}
	return "was " + m.Was + ", now " + m.Now
}

// Name is "collection ID", or "scalar FIELD".
func (m MemberDiff) Name() string {
	if m.Collection == "" {
		return "scalar " + m.ID
	}
	return m.Collection + " " + m.ID
}

// FieldDiff is one field change of a member, by path, as the baseline and
// the fresh run record it; nil on the side that does not change the field.
type FieldDiff struct {
	Path string            `json:"path"`
	Was  *statediff.Change `json:"was,omitempty"`
	Now  *statediff.Change `json:"now,omitempty"`
	// FromWords and ToWords are word diffs of the string values the two
	// sides record, when both are strings and differ.
	FromWords []Span `json:"fromWords,omitempty"`
	ToWords   []Span `json:"toWords,omitempty"`
}

// What says how the field's change moved: "now also changed", "no longer
// changed" or "changed differently".
func (f FieldDiff) What() string {
	switch {
	case f.Was == nil:
		return "now also changed"
	case f.Now == nil:
		return "no longer changed"
	}
	return "changed differently"
}

// memberSide is what one side's state diff says of one member.
type memberSide struct {
	list   string
	value  json.RawMessage
	fields map[string]*statediff.Change
}

// diffMembers compares two state-diff.json files member by member. It
// returns false when name is not a state diff or either file has another
// shape (the original runner's, or a hand-edited one), for the caller to
// compare them as plain JSON.
func diffMembers(name string, old, fresh []byte) ([]MemberDiff, bool) {
	if a, ok := artifact.Of(name); !ok || a.Diff != artifact.DiffMembers {
		return nil, false
	}
	a, ok := decodeMembers(old)
	if !ok {
		return nil, false
	}
	b, ok := decodeMembers(fresh)
	if !ok {
		return nil, false
	}
	keys := map[[2]string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	sorted := make([][2]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	slices.SortFunc(sorted, func(a, b [2]string) int {
		return cmp.Or(strings.Compare(a[0], b[0]), strings.Compare(a[1], b[1]))
	})
	var out []MemberDiff
	for _, k := range sorted {
		if m, differs := diffMember(k, a[k], b[k]); differs {
			out = append(out, m)
		}
	}
	return out, true
}

func diffMember(k [2]string, a, b *memberSide) (MemberDiff, bool) {
	m := MemberDiff{Collection: k[0], ID: k[1]}
	if a != nil {
		m.Was = a.list
	}
	if b != nil {
		m.Now = b.list
	}
	var af, bf map[string]*statediff.Change
	if a != nil {
		af = a.fields
	}
	if b != nil {
		bf = b.fields
	}
	m.Fields = diffFields(af, bf)
	if m.Was != m.Now {
		if a != nil && a.value != nil {
			m.OldValue = compactRaw(a.value)
		}
		if b != nil && b.value != nil {
			m.NewValue = compactRaw(b.value)
		}
		return m, true
	}
	if !jsonEqual(a.value, b.value) {
		changes, err := diffValues(a.value, b.value)
		if err != nil {
			// a value on one side only (a hand-edited file): both whole
			m.OldValue, m.NewValue = compactRaw(a.value), compactRaw(b.value)
		} else {
			m.Value = changes
		}
	}
	return m, len(m.Fields) > 0 || len(m.Value) > 0 || m.OldValue != nil || m.NewValue != nil
}

func diffFields(a, b map[string]*statediff.Change) []FieldDiff {
	paths := map[string]bool{}
	for p := range a {
		paths[p] = true
	}
	for p := range b {
		paths[p] = true
	}
	var out []FieldDiff
	for _, p := range slices.Sorted(maps.Keys(paths)) {
		fa, fb := a[p], b[p]
		if fa != nil && fb != nil && fa.Op == fb.Op && jsonEqual(fa.From, fb.From) && jsonEqual(fa.To, fb.To) {
			continue
		}
		f := FieldDiff{Path: p, Was: fa, Now: fb}
		if fa != nil && fb != nil {
			f.FromWords = stringWords(fa.From, fb.From)
			f.ToWords = stringWords(fa.To, fb.To)
		}
		out = append(out, f)
	}
	return out
}

// decodeMembers indexes a state diff by (collection, id); scalars are
// under collection "". It returns false when the file does not have the
// shape of state-diff.json or names a member or path twice.
func decodeMembers(data []byte) (map[[2]string]*memberSide, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var d statediff.Diff
	if dec.Decode(&d) != nil || d.Collections == nil && d.Scalars == nil {
		return nil, false
	}
	out := map[[2]string]*memberSide{}
	add := func(k [2]string, s *memberSide) bool {
		if k[1] == "" || out[k] != nil {
			return false
		}
		out[k] = s
		return true
	}
	for _, c := range d.Scalars {
		if c.Field == "" || !add([2]string{"", c.Field}, &memberSide{list: "changed", fields: map[string]*statediff.Change{"": fieldChange(c)}}) {
			return nil, false
		}
	}
	for name, coll := range d.Collections {
		if coll == nil || name == "" {
			return nil, false
		}
		for _, m := range coll.Added {
			if !add([2]string{name, m.ID}, &memberSide{list: "added", value: m.Value}) {
				return nil, false
			}
		}
		for _, m := range coll.Removed {
			if !add([2]string{name, m.ID}, &memberSide{list: "removed", value: m.Value}) {
				return nil, false
			}
		}
		for _, m := range coll.Changed {
			fields := map[string]*statediff.Change{}
			for _, c := range m.Changes {
				if _, dup := fields[c.Path]; dup {
					return nil, false
				}
				fields[c.Path] = fieldChange(c)
			}
			if !add([2]string{name, m.ID}, &memberSide{list: "changed", fields: fields}) {
				return nil, false
			}
		}
	}
	return out, true
}

func fieldChange(c statediff.Change) *statediff.Change {
	f := &statediff.Change{Op: c.Op} // Field and Path are the member diff's
	if c.From != nil {
		f.From = compactRaw(c.From)
	}
	if c.To != nil {
		f.To = compactRaw(c.To)
	}
	return f
}

// jsonEqual reports whether two JSON texts hold the same value.
func jsonEqual(a, b json.RawMessage) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return bytes.Equal(compactRaw(a), compactRaw(b))
}
