package change

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDiffFileNamesStateDiffOrder: a state diff whose field changes of a
// member, members of a list or scalars swap places holds the same entries,
// matched by path and id, in other bytes: the difference is named as an
// order difference, as key order is, never left as "spacing".
func TestDiffFileNamesStateDiffOrder(t *testing.T) {
	base := `{"scalars":[{"field":"clock","op":"replace","from":1,"to":2},{"field":"mode","op":"replace","from":"a","to":"b"}],` +
		`"collections":{"deals":{"added":[{"id":"D-1","value":{}},{"id":"D-2","value":{}}],"removed":[],` +
		`"changed":[{"id":"D-3","changes":[{"path":"/amount","op":"replace","from":1,"to":2},{"path":"/owner","op":"replace","from":"a","to":"b"}]},` +
		`{"id":"D-4","changes":[{"path":"/x","op":"add","to":1}]}]}}}` + "\n"
	swap := func(s, x, y string) string {
		i, j := strings.Index(s, x), strings.Index(s, y)
		if i < 0 || j < 0 || i > j {
			t.Fatalf("cannot swap %q and %q", x, y)
		}
		return s[:i] + y + s[i+len(x):j] + x + s[j+len(y):]
	}
	fieldA, fieldB := `{"path":"/amount","op":"replace","from":1,"to":2}`, `{"path":"/owner","op":"replace","from":"a","to":"b"}`
	changedA := `{"id":"D-3","changes":[` + fieldA + `,` + fieldB + `]}`
	changedB := `{"id":"D-4","changes":[{"path":"/x","op":"add","to":1}]}`
	for _, tc := range []struct {
		name  string
		fresh string
		want  []Invisible
	}{
		{"field changes", swap(base, fieldA, fieldB), []Invisible{{Path: "/collections/deals/changed/0/changes", Kind: "field change order",
			Detail: "field changes in another order (/amount, /owner → /owner, /amount)"}}},
		{"changed members", swap(base, changedA, changedB), []Invisible{{Path: "/collections/deals/changed", Kind: "member order",
			Detail: "members in another order (D-3, D-4 → D-4, D-3)"}}},
		{"added members", swap(base, `{"id":"D-1","value":{}}`, `{"id":"D-2","value":{}}`), []Invisible{{Path: "/collections/deals/added", Kind: "member order",
			Detail: "members in another order (D-1, D-2 → D-2, D-1)"}}},
		{"scalars", swap(base, `{"field":"clock","op":"replace","from":1,"to":2}`, `{"field":"mode","op":"replace","from":"a","to":"b"}`),
			[]Invisible{{Path: "/scalars", Kind: "scalar order", Detail: "scalars in another order (clock, mode → mode, clock)"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := DiffFile("state-diff.json", []byte(base), []byte(tc.fresh))
			if d == nil {
				t.Fatal("no difference found")
			}
			if len(d.Members) != 0 || len(d.Changes) != 0 {
				t.Errorf("members %+v, changes %+v: the same entries are no change", d.Members, d.Changes)
			}
			if diff := cmp.Diff(tc.want, d.Invisible); diff != "" {
				t.Errorf("invisible (-want +got):\n%s", diff)
			}
		})
	}
	// an order difference beside a real change: both named
	fresh := strings.Replace(swap(base, fieldA, fieldB), `"to":2}`, `"to":3}`, 1)
	if d := DiffFile("state-diff.json", []byte(base), []byte(fresh)); d == nil || len(d.Members) == 0 || len(d.Invisible) == 0 {
		t.Errorf("a change beside the swap: %+v", d)
	}
	if got := shortList(strings.Split("a b c d e f g h i j", " ")); got != "a, b, c, d, e, f, g, h, … 2 more" {
		t.Errorf("shortList = %q", got)
	}
}
