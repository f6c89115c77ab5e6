package change

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agent-oracle/oracle/runner/statediff"
)

// memberOrder names the differences of order between two state diffs that
// the member diff, which matches members by id and field changes by path,
// leaves unshown: the same members of a list, the same field changes of a
// member, the same scalars, in another order. The bytes differ, and a
// reader of the two sides would see the same entries: as for keys, the
// order is named.
func memberOrder(old, fresh []byte) []Invisible {
	var a, b statediff.Diff
	if json.Unmarshal(old, &a) != nil || json.Unmarshal(fresh, &b) != nil {
		return nil
	}
	var out []Invisible
	order := func(path, what string, x, y []string) {
		if sameSet(x, y) && !equalStrings(x, y) {
			out = append(out, Invisible{Path: path, Kind: what + " order",
				Detail: fmt.Sprintf("%ss in another order (%s → %s)", what, shortList(x), shortList(y))})
		}
	}
	fields := func(cs []statediff.Change, key func(statediff.Change) string) []string {
		out := make([]string, len(cs))
		for i, c := range cs {
			out[i] = key(c)
		}
		return out
	}
	order("/scalars", "scalar", fields(a.Scalars, scalarField), fields(b.Scalars, scalarField))
	names := make([]string, 0, len(b.Collections))
	for name := range b.Collections {
		if a.Collections[name] != nil && b.Collections[name] != nil {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		ca, cb := a.Collections[name], b.Collections[name]
		base := "/collections/" + escapePointer(name)
		order(base+"/added", "member", memberIDs(ca.Added), memberIDs(cb.Added))
		order(base+"/removed", "member", memberIDs(ca.Removed), memberIDs(cb.Removed))
		var ia, ib []string
		for _, m := range ca.Changed {
			ia = append(ia, m.ID)
		}
		for _, m := range cb.Changed {
			ib = append(ib, m.ID)
		}
		order(base+"/changed", "member", ia, ib)
		for i, mb := range cb.Changed {
			j := slices.IndexFunc(ca.Changed, func(m statediff.Changed) bool { return m.ID == mb.ID })
			if j < 0 {
				continue
			}
			order(fmt.Sprintf("%s/changed/%d/changes", base, i), "field change", fields(ca.Changed[j].Changes, changePath), fields(mb.Changes, changePath))
		}
	}
	return out
}

func scalarField(c statediff.Change) string { return c.Field }
func changePath(c statediff.Change) string  { return c.Path }

func memberIDs(ms []statediff.Member) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

// shortList joins a list for a sentence, its first eight entries and a
// count of the rest.
func shortList(list []string) string {
	const most = 8
	if len(list) <= most {
		return strings.Join(list, ", ")
	}
	return fmt.Sprintf("%s, … %d more", strings.Join(list[:most], ", "), len(list)-most)
}
