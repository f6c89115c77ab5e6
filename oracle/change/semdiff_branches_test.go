package change

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDiffFileStates pins how DiffFile classifies a file: absent on both
// sides, equal bytes, on one side only, not JSON on either side, and a
// plain change, which names no invisible difference.
func TestDiffFileStates(t *testing.T) {
	doc := []byte(`{"a":1}` + "\n")
	tests := []struct {
		name       string
		old, fresh []byte
		state      FileState // "" for no difference
		err        string
	}{
		{"absent on both sides", nil, nil, "", ""},
		{"the same bytes", doc, []byte(`{"a":1}` + "\n"), "", ""},
		{"only the new side", nil, doc, FileAdded, ""},
		{"only the old side", doc, nil, FileRemoved, ""},
		{"an empty new side is there", doc, []byte{}, FileUnreadable, "new result.json is not JSON: "},
		{"old is not JSON", []byte("{"), doc, FileUnreadable, "old result.json is not JSON: "},
		{"new is not JSON", doc, []byte("nope"), FileUnreadable, "new result.json is not JSON: "},
		{"neither is JSON", []byte("{"), []byte("nope"), FileUnreadable, "old result.json is not JSON: "},
		{"a change", doc, []byte(`{"a":2}` + "\n"), FileChanged, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := DiffFile("result.json", tt.old, tt.fresh)
			if tt.state == "" {
				if d != nil {
					t.Fatalf("diff %+v, want none", d)
				}
				return
			}
			if d == nil {
				t.Fatal("no difference found")
			}
			if d.State != tt.state || d.File != "result.json" {
				t.Errorf("file %q state %q, want result.json %q", d.File, d.State, tt.state)
			}
			if tt.err == "" && d.Error != "" || len(d.Error) < len(tt.err) || d.Error[:len(tt.err)] != tt.err {
				t.Errorf("error %q, want it to start %q", d.Error, tt.err)
			}
			if tt.state != FileChanged && (len(d.Changes) != 0 || len(d.Members) != 0) {
				t.Errorf("a %s file has changes %+v %+v", d.State, d.Changes, d.Members)
			}
			if tt.state == FileChanged && len(d.Invisible) != 0 {
				t.Errorf("a plain change names invisible differences %+v", d.Invisible)
			}
		})
	}
	// an unreadable side still names the invisible differences of the bytes
	d := DiffFile("result.json", []byte("{\r\n"), []byte("nope\n"))
	if d == nil || d.State != FileUnreadable || len(d.Invisible) == 0 {
		t.Errorf("unreadable with CRLF: %+v", d)
	}
}

// TestDiffFileUnexplained: a state diff whose members changed is explained
// by that change, and nothing invisible is added beside it (members only in
// another order are named as such: memberorder_test.go).
func TestDiffFileUnexplained(t *testing.T) {
	a := []byte(`{"scalars":[],"collections":{"t":{"added":[{"id":"A","value":1},{"id":"B","value":2}],"removed":[],"changed":[]}}}`)
	d := DiffFile("state-diff.json", a, []byte(`{"scalars":[],"collections":{"t":{"added":[{"id":"A","value":1}],"removed":[],"changed":[]}}}`))
	if d == nil || len(d.Members) != 1 || len(d.Invisible) != 0 {
		t.Errorf("diff = %+v, want one member and nothing invisible", d)
	}
}

// TestStringWords: a replaced string gets its word diff only when both
// sides are strings that differ and share a word that is not white space.
func TestStringWords(t *testing.T) {
	tests := []struct {
		from, to string
		want     []Span
	}{
		{`"a b"`, `"a c"`, []Span{{Op: Same, Text: "a "}, {Op: Deleted, Text: "b"}, {Op: Inserted, Text: "c"}}},
		{`"a b"`, `"a b"`, nil},
		{`"abc"`, `"xyz"`, nil},
		{`"a b"`, `"c d"`, nil},
		{`"x"`, `1`, nil},
		{`1`, `"x"`, nil},
		{`null`, `"x y"`, nil},
		{`"x y"`, `"x  y z"`, []Span{{Op: Same, Text: "x"}, {Op: Deleted, Text: " y"}, {Op: Inserted, Text: "  y z"}}},
	}
	for _, tt := range tests {
		got := stringWords(json.RawMessage(tt.from), json.RawMessage(tt.to))
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("stringWords(%s, %s) (-want +got):\n%s", tt.from, tt.to, diff)
		}
	}
	// a replaced string in a plain diff carries the same words, a replaced
	// number none
	d := DiffFile("result.json", []byte(`{"s":"a b","n":1}`), []byte(`{"s":"a c","n":2}`))
	if d == nil || len(d.Changes) != 2 || d.Changes[0].Words != nil || d.Changes[1].Words == nil {
		t.Errorf("changes %+v", d)
	}
}
