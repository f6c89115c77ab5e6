package change

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agent-oracle/oracle/runner/statediff"
	"github.com/google/go-cmp/cmp"
)

// memberLines writes member diffs one a line: "name: what", then each
// field "  path: what was → now" (a side "-" when it does not change the
// field; "op from>to" otherwise), the one-sided values and the value
// changes.
func memberLines(members []MemberDiff) []string {
	side := func(c *statediff.Change) string {
		if c == nil {
			return "-"
		}
		return fmt.Sprintf("%s %s>%s", c.Op, c.From, c.To)
	}
	words := func(spans []Span) string {
		var b strings.Builder
		for _, s := range spans {
			switch s.Op {
			case Deleted:
				b.WriteString("[-" + s.Text + "-]")
			case Inserted:
				b.WriteString("{+" + s.Text + "+}")
			default:
				b.WriteString(s.Text)
			}
		}
		return b.String()
	}
	var out []string
	for _, m := range members {
		out = append(out, m.Name()+": "+m.What())
		for _, f := range m.Fields {
			line := fmt.Sprintf("  %s: %s %s → %s", f.Path, f.What(), side(f.Was), side(f.Now))
			if f.FromWords != nil {
				line += " from " + words(f.FromWords)
			}
			if f.ToWords != nil {
				line += " to " + words(f.ToWords)
			}
			out = append(out, line)
		}
		if m.OldValue != nil || m.NewValue != nil {
			out = append(out, fmt.Sprintf("  old %s new %s", m.OldValue, m.NewValue))
		}
		for _, c := range m.Value {
			out = append(out, fmt.Sprintf("  value %s %s %s>%s", c.Op, c.Path, c.From, c.To))
		}
	}
	return out
}

// sd writes a state-diff.json of one collection t and the given scalars.
func sd(scalars, added, removed, changed string) []byte {
	return []byte(`{"scalars":[` + scalars + `],"collections":{"t":{"added":[` + added + `],"removed":[` + removed + `],"changed":[` + changed + `]}}}`)
}

// TestDiffMembersBranches pins the keyed member diff in each branch: a
// field change whose from, to or op changed alone, a field now or no
// longer changed, a member in another list on each side, one-sided values,
// the value diff of a member added on both sides, and a member that is the
// same on both sides, which is not listed.
func TestDiffMembersBranches(t *testing.T) {
	const (
		same  = `{"id":"S","changes":[{"path":"/k","op":"replace","from":1,"to":2}]}`
		x12   = `{"id":"X","changes":[{"path":"/a","op":"replace","from":1,"to":2}]}`
		clock = `{"field":"clock","op":"replace","from":"09:00","to":"10:00"}`
	)
	tests := []struct {
		name       string
		old, fresh []byte
		want       []string
	}{
		{"a field's from changed alone", sd("", "", "", x12+","+same), sd("", "", "", strings.Replace(x12, `"from":1`, `"from":5`, 1)+","+same),
			[]string{"t X: changed differently", "  /a: changed differently replace 1>2 → replace 5>2"}},
		{"a field's to changed alone", sd("", "", "", x12), sd("", "", "", strings.Replace(x12, `"to":2`, `"to":3`, 1)),
			[]string{"t X: changed differently", "  /a: changed differently replace 1>2 → replace 1>3"}},
		{"a field's op changed alone", sd("", "", "", `{"id":"X","changes":[{"path":"/a","op":"add","to":2}]}`),
			sd("", "", "", `{"id":"X","changes":[{"path":"/a","op":"replace","to":2}]}`),
			[]string{"t X: changed differently", "  /a: changed differently add >2 → replace >2"}},
		{"a field now also changed", sd("", "", "", x12),
			sd("", "", "", `{"id":"X","changes":[{"path":"/a","op":"replace","from":1,"to":2},{"path":"/b","op":"remove","from":true}]}`),
			[]string{"t X: changed differently", "  /b: now also changed - → remove true>"}},
		{"a field no longer changed", sd("", "", "", `{"id":"X","changes":[{"path":"/a","op":"replace","from":1,"to":2},{"path":"/b","op":"add","to":null}]}`),
			sd("", "", "", x12),
			[]string{"t X: changed differently", "  /b: no longer changed add >null → -"}},
		{"string values: their words", sd("", "", "", `{"id":"X","changes":[{"path":"/s","op":"replace","from":"a b c","to":"d e"}]}`),
			sd("", "", "", `{"id":"X","changes":[{"path":"/s","op":"replace","from":"a B c","to":"d e f"}]}`),
			[]string{"t X: changed differently", `  /s: changed differently replace "a b c">"d e" → replace "a B c">"d e f" from a [-b-]{+B+} c to d e{+ f+}`}},
		{"an added field the same on both sides", sd("", "", "", `{"id":"X","changes":[{"path":"/a","op":"add","to":1},{"path":"/b","op":"remove","from":1}]}`),
			sd("", "", "", `{"id":"X","changes":[{"path":"/a","op":"add","to":1},{"path":"/b","op":"remove","from":2}]}`),
			[]string{"t X: changed differently", "  /b: changed differently remove 1> → remove 2>"}},
		{"a member now changed", sd("", "", "", same), sd("", "", "", same+","+x12),
			[]string{"t X: now changed", "  /a: now also changed - → replace 1>2"}},
		{"a member no longer changed", sd("", "", "", same+","+x12), sd("", "", "", same),
			[]string{"t X: no longer changed", "  /a: no longer changed replace 1>2 → -"}},
		{"a member now added", sd("", "", "", ""), sd("", `{"id":"N","value":{"id":"N","v":1}}`, "", ""),
			[]string{"t N: now added", `  old  new {"id":"N","v":1}`}},
		{"a member no longer removed", sd("", "", `{"id":"R","value":{"id":"R"}}`, ""), sd("", "", "", ""),
			[]string{"t R: no longer removed", `  old {"id":"R"} new `}},
		{"a member was changed, now removed", sd("", "", "", x12), sd("", "", `{"id":"X","value":{"id":"X","a":1}}`, ""),
			[]string{"t X: was changed, now removed", "  /a: no longer changed replace 1>2 → -", `  old  new {"a":1,"id":"X"}`}},
		{"a member was added, now changed", sd("", `{"id":"X","value":{"id":"X"}}`, "", ""), sd("", "", "", x12),
			[]string{"t X: was added, now changed", "  /a: now also changed - → replace 1>2", `  old {"id":"X"} new `}},
		{"added on both sides with another value", sd("", `{"id":"N","value":{"id":"N","v":1,"w":[1]}}`, "", ""),
			sd("", `{"id":"N","value":{"id":"N","v":2,"w":[1]}}`, "", ""),
			[]string{"t N: added differently", "  value replace /v 1>2"}},
		{"removed on both sides with another value", sd("", "", `{"id":"R","value":{"id":"R","v":"x"}}`, ""),
			sd("", "", `{"id":"R","value":{"id":"R"}}`, ""),
			[]string{"t R: removed differently", `  value remove /v "x">`}},
		{"added on both sides with the same value, spelled otherwise", sd("", `{"id":"N","value":{"id":"N","v":1}}`, "", x12),
			sd("", `{"id":"N","value":{ "v":1, "id":"N"}}`, "", strings.Replace(x12, `"to":2`, `"to":3`, 1)),
			[]string{"t X: changed differently", "  /a: changed differently replace 1>2 → replace 1>3"}},
		{"a scalar's to changed alone", sd(clock, "", "", ""), sd(strings.Replace(clock, "10:00", "11:00", 1), "", "", ""),
			[]string{"scalar clock: changed differently", `  : changed differently replace "09:00">"10:00" → replace "09:00">"11:00"`}},
		{"a scalar now changed", sd("", "", "", ""), sd(clock, "", "", ""),
			[]string{"scalar clock: now changed", `  : now also changed - → replace "09:00">"10:00"`}},
		{"a scalar no longer changed", sd(clock, "", "", ""), sd("", "", "", ""),
			[]string{"scalar clock: no longer changed", `  : no longer changed replace "09:00">"10:00" → -`}},
		{"a value on one side only", sd("", `{"id":"N"}`, "", ""), sd("", `{"id":"N","value":{"v":1}}`, "", ""),
			[]string{"t N: added differently", `  old  new {"v":1}`}},
		{"a value on the other side only", sd("", "", `{"id":"R","value":null}`, ""), sd("", "", `{"id":"R"}`, ""),
			[]string{"t R: removed differently", `  old null new `}},
		{"a from on one side only", sd("", "", "", `{"id":"X","changes":[{"path":"/a","op":"replace","to":2}]}`), sd("", "", "", x12),
			[]string{"t X: changed differently", "  /a: changed differently replace >2 → replace 1>2"}},
		{"a to on one side only", sd("", "", "", x12), sd("", "", "", `{"id":"X","changes":[{"path":"/a","op":"replace","from":1}]}`),
			[]string{"t X: changed differently", "  /a: changed differently replace 1>2 → replace 1>"}},
		{"a state diff of scalars only", []byte(`{"scalars":[` + clock + `]}`), []byte(`{"scalars":[]}`),
			[]string{"scalar clock: no longer changed", `  : no longer changed replace "09:00">"10:00" → -`}},
		{"a state diff of collections only", []byte(`{"collections":{}}`), []byte(`{"collections":{"t":{"added":[{"id":"N","value":1}],"removed":[],"changed":[]}}}`),
			[]string{"t N: now added", "  old  new 1"}},
		{"members in key order: collection, then id", []byte(`{"scalars":[],"collections":{"b":{"added":[{"id":"A","value":1}],"removed":[],"changed":[]},"a":{"added":[{"id":"Z","value":1},{"id":"B","value":1}],"removed":[],"changed":[]}}}`),
			[]byte(`{"scalars":[],"collections":{}}`),
			[]string{"a B: no longer added", "  old 1 new ", "a Z: no longer added", "  old 1 new ", "b A: no longer added", "  old 1 new "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := DiffFile("TASK-001.state-diff.json", tt.old, tt.fresh)
			if d == nil {
				t.Fatal("no difference found")
			}
			if len(d.Changes) != 0 {
				t.Errorf("changes %+v: want the members compared", d.Changes)
			}
			if diff := cmp.Diff(tt.want, memberLines(d.Members)); diff != "" {
				t.Errorf("members (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDiffMembersOtherShapes: a state-diff.json that is not in the shape
// oracle writes, on either side, is compared as plain JSON: no members.
func TestDiffMembersOtherShapes(t *testing.T) {
	good := sd("", `{"id":"N","value":1}`, "", "")
	for _, tt := range []struct{ name, bad string }{
		{"an unknown field", `{"scalars":[],"collections":{},"extra":1}`},
		{"neither scalars nor collections", `{}`},
		{"a scalar without a field", `{"scalars":[{"op":"replace","from":1,"to":2}],"collections":{}}`},
		{"a scalar named twice", `{"scalars":[{"field":"c","op":"add","to":1},{"field":"c","op":"add","to":2}],"collections":{}}`},
		{"a member without an id", string(sd("", `{"value":1}`, "", ""))},
		{"a member in two lists", string(sd("", `{"id":"N","value":1}`, `{"id":"N","value":1}`, ""))},
		{"a member added twice", string(sd("", `{"id":"N","value":1},{"id":"N","value":2}`, "", ""))},
		{"a member changed twice", string(sd("", "", "", `{"id":"X","changes":[]},{"id":"X","changes":[]}`))},
		{"a path changed twice", string(sd("", "", "", `{"id":"X","changes":[{"path":"/a","op":"add","to":1},{"path":"/a","op":"add","to":2}]}`))},
		{"a null collection", `{"scalars":[],"collections":{"t":null}}`},
		{"a collection without a name", `{"scalars":[],"collections":{"":{"added":[],"removed":[],"changed":[]}}}`},
		{"the original runner's ids only", `{"collections":{"t":{"added":["N"]}}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, pair := range [][2][]byte{{good, []byte(tt.bad)}, {[]byte(tt.bad), good}} {
				d := DiffFile("state-diff.json", pair[0], pair[1])
				if d == nil || len(d.Members) != 0 || len(d.Changes) == 0 {
					t.Errorf("diff of %s and %s: %d members, %d changes; want plain changes", pair[0], pair[1], len(d.Members), len(d.Changes))
				}
			}
		})
	}
	// the members of a file under another name are not compared
	d := DiffFile("result.json", good, sd("", `{"id":"N","value":2}`, "", ""))
	if d == nil || len(d.Members) != 0 || len(d.Changes) != 1 {
		t.Errorf("result.json in the shape of a state diff: %+v", d)
	}
}

// TestMemberWords: What and Name say how a member and a field moved.
func TestMemberWords(t *testing.T) {
	for _, tt := range []struct {
		m          MemberDiff
		name, what string
	}{
		{MemberDiff{Collection: "t", ID: "X", Now: "added"}, "t X", "now added"},
		{MemberDiff{Collection: "t", ID: "X", Was: "removed"}, "t X", "no longer removed"},
		{MemberDiff{Collection: "t", ID: "X", Was: "changed", Now: "changed"}, "t X", "changed differently"},
		{MemberDiff{Collection: "t", ID: "X", Was: "added", Now: "removed"}, "t X", "was added, now removed"},
		{MemberDiff{ID: "clock", Was: "changed", Now: "changed"}, "scalar clock", "changed differently"},
	} {
		if got := tt.m.Name(); got != tt.name {
			t.Errorf("%+v: Name %q, want %q", tt.m, got, tt.name)
		}
		if got := tt.m.What(); got != tt.what {
			t.Errorf("%+v: What %q, want %q", tt.m, got, tt.what)
		}
	}
	c := &statediff.Change{Op: "add"}
	for _, tt := range []struct {
		f    FieldDiff
		want string
	}{
		{FieldDiff{Now: c}, "now also changed"},
		{FieldDiff{Was: c}, "no longer changed"},
		{FieldDiff{Was: c, Now: c}, "changed differently"},
	} {
		if got := tt.f.What(); got != tt.want {
			t.Errorf("%+v: What %q, want %q", tt.f, got, tt.want)
		}
	}
}
