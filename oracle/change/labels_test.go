package change

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLabelChecks pins which check a change under /checks/N is about: the
// new file's check N, or the old file's for a removed check and when the
// new file has no check N or no label for it.
func TestLabelChecks(t *testing.T) {
	old := []byte(`{"checks":[{"label":"A"},{"label":"B"},{"label":"C"},{"detail":"no label"}]}`)
	fresh := []byte(`{"checks":[{"label":"A2"},{"label":""},{"label":"C2"}]}`)
	tests := []struct {
		op   ChangeOp
		path string
		want string
	}{
		{ChangeReplace, "/checks/0/passed", "A2"},
		{ChangeReplace, "/checks/0", "A2"},
		{ChangeAdd, "/checks/2", "C2"},
		{ChangeRemove, "/checks/2", "C"},
		{ChangeRemove, "/checks/2/detail", "C2"},
		{ChangeReplace, "/checks/1/label", "B"},  // no label in the new file: the old one's
		{ChangeRemove, "/checks/1", "B"},         // a removed check: the old file's
		{ChangeRemove, "/checks/3", ""},          // the old check has no label, the new file no check 3
		{ChangeReplace, "/checks/3/passed", ""},  // likewise
		{ChangeReplace, "/checks/9/passed", ""},  // on neither side
		{ChangeReplace, "/checks/-1/passed", ""}, // not an index
		{ChangeReplace, "/checks/x", ""},
		{ChangeReplace, "/checks", ""},
		{ChangeReplace, "/checksPassed", ""},
		{ChangeReplace, "/reward", ""},
	}
	for _, tt := range tests {
		changes := []Change{{Op: tt.op, Path: tt.path}}
		labelChecks(changes, old, fresh)
		if changes[0].Label != tt.want {
			t.Errorf("%s %s: label %q, want %q", tt.op, tt.path, changes[0].Label, tt.want)
		}
	}
	// every change of a list is labelled, the files read once
	changes := []Change{{Op: ChangeReplace, Path: "/reward"}, {Op: ChangeReplace, Path: "/checks/0/passed"}, {Op: ChangeRemove, Path: "/checks/2"}}
	labelChecks(changes, old, fresh)
	if got := []string{changes[0].Label, changes[1].Label, changes[2].Label}; !cmp.Equal(got, []string{"", "A2", "C"}) {
		t.Errorf("labels %q", got)
	}
}

func TestCheckIndex(t *testing.T) {
	for _, tt := range []struct {
		path string
		n    int
		ok   bool
	}{
		{"/checks/0", 0, true}, {"/checks/12/detail", 12, true}, {"/checks/3/a/b", 3, true},
		{"/checks/", 0, false}, {"/checks/-2", 0, false}, {"/checks/x/1", 0, false}, {"/checks", 0, false},
		{"/other/checks/1", 0, false}, {"checks/1", 0, false},
	} {
		n, ok := checkIndex(tt.path)
		if ok != tt.ok || ok && n != tt.n {
			t.Errorf("checkIndex(%q) = %d, %v; want %d, %v", tt.path, n, ok, tt.n, tt.ok)
		}
	}
}

func TestCheckLabels(t *testing.T) {
	for _, tt := range []struct {
		result string
		want   []string
	}{
		{`{"checks":[{"label":"A"},{"label":7},{},1,{"label":"D"}]}`, []string{"A", "", "", "", "D"}},
		{`{"checks":[]}`, []string{}},
		{`{"checks":"x"}`, nil},
		{`[]`, nil},
		{`{`, nil},
	} {
		if got := checkLabels([]byte(tt.result)); !cmp.Equal(got, tt.want) {
			t.Errorf("checkLabels(%s) = %q, want %q", tt.result, got, tt.want)
		}
	}
}
