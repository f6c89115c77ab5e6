package oracle

import (
	"testing"

	"github.com/agent-oracle/oracle/baseline"

	"github.com/google/go-cmp/cmp"
)

// TestCallErrorChanges: a fresh call's error is new only when its matched
// baseline call did not fail that way; errors that disappear are gone.
func TestCallErrorChanges(t *testing.T) {
	te := func(call int, tool, code string) FailedCall {
		return FailedCall{Call: call, Tool: tool, Code: code, Message: "m"}
	}
	tests := []struct {
		name       string
		old, fresh []byte
		added      []FailedCall
		gone       []FailedCall
	}{
		{"same errors", calls("a {} !x", "b {} 1"), calls("a {} !x", "b {} 1"), nil, nil},
		{"a call now fails", calls("a {} 1", "b {} 2"), calls("a {} 1", "b {} !not_found"),
			[]FailedCall{te(2, "b", "not_found")}, nil},
		{"an old error stays, a new one is added", calls("a {} !x", "b {} 2"), calls("a {} !x", "b {} !y"),
			[]FailedCall{te(2, "b", "y")}, nil},
		{"an inserted failing call does not shift the others", calls("a {} !x", "b {} 2"),
			calls("c {} !z", "a {} !x", "b {} 2"), []FailedCall{te(1, "c", "z")}, nil},
		{"an error disappears", calls("a {} !x", "b {} 2"), calls("a {} 1", "b {} 2"),
			nil, []FailedCall{te(1, "a", "x")}},
		{"an error changes code", calls("a {} !x"), calls("a {} !y"),
			[]FailedCall{te(1, "a", "y")}, []FailedCall{te(1, "a", "x")}},
		{"a failing call is removed", calls("a {} !x", "b {} 2"), calls("b {} 2"),
			nil, []FailedCall{te(1, "a", "x")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkErrorChanges(t, tt.old, tt.fresh, tt.added, tt.gone) })
	}
	if _, _, ok := callErrorChanges([]byte(`{"a":1}`), calls("a {} 1")); ok {
		t.Error("an object read as calls.json")
	}
}

// checkErrorChanges checks the new and gone tool errors of two calls.json.
func checkErrorChanges(t *testing.T, old, fresh []byte, wantAdded, wantGone []FailedCall) {
	t.Helper()
	added, gone, ok := callErrorChanges(old, fresh)
	if !ok {
		t.Fatal("not read as calls.json")
	}
	if diff := cmp.Diff(wantAdded, added); diff != "" {
		t.Errorf("new errors (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantGone, gone); diff != "" {
		t.Errorf("gone errors (-want +got):\n%s", diff)
	}
}

// TestCompare: a pending case is compared with its baseline as accept
// would apply it: an artifact that is not pending is no change, and the new
// tool errors come from calls.json.
func TestCompare(t *testing.T) {
	k := baseline.Key{Env: "e", Agent: "a", Task: "T"}
	result := func(verdict string) []byte { return []byte(`{"verdict":"` + verdict + `","reward":1}` + "\n") }
	frozen := baseline.Entry{Result: result("pass"), StateDiff: []byte("{}\n"), Calls: calls("a {} 1", "b {} 2")}
	tests := []struct {
		name   string
		fresh  baseline.Entry
		status Status
		files  []string
		added  []FailedCall
	}{
		{"only result.json pending, the same", baseline.Entry{Result: result("pass")}, StatusUnchanged, nil, nil},
		{"only result.json pending, changed", baseline.Entry{Result: result("fail")}, StatusChanged, []string{"result.json"}, nil},
		{"a call now fails", baseline.Entry{Result: result("pass"), Calls: calls("a {} 1", "b {} !not_found")}, StatusChanged,
			[]string{"calls.json"}, []FailedCall{{Call: 2, Tool: "b", Code: "not_found", Message: "m"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cr := Compare(k, &frozen, tt.fresh, false)
			var files []string
			for _, f := range cr.Files {
				files = append(files, f.File)
			}
			if cr.Status != tt.status {
				t.Errorf("status %s, want %s", cr.Status, tt.status)
			}
			if diff := cmp.Diff(tt.files, files); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.added, cr.NewToolErrors); diff != "" {
				t.Errorf("new tool errors (-want +got):\n%s", diff)
			}
		})
	}
}
