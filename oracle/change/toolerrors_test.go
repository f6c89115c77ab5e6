package change

import (
	"testing"

	"github.com/agent-oracle/oracle/oracle/internal/artifacttest"

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
		{"same errors", artifacttest.Calls("a {} !x", "b {} 1"), artifacttest.Calls("a {} !x", "b {} 1"), nil, nil},
		{"a call now fails", artifacttest.Calls("a {} 1", "b {} 2"), artifacttest.Calls("a {} 1", "b {} !not_found"),
			[]FailedCall{te(2, "b", "not_found")}, nil},
		{"an old error stays, a new one is added", artifacttest.Calls("a {} !x", "b {} 2"), artifacttest.Calls("a {} !x", "b {} !y"),
			[]FailedCall{te(2, "b", "y")}, nil},
		{"an inserted failing call does not shift the others", artifacttest.Calls("a {} !x", "b {} 2"),
			artifacttest.Calls("c {} !z", "a {} !x", "b {} 2"), []FailedCall{te(1, "c", "z")}, nil},
		{"an error disappears", artifacttest.Calls("a {} !x", "b {} 2"), artifacttest.Calls("a {} 1", "b {} 2"),
			nil, []FailedCall{te(1, "a", "x")}},
		{"an error changes code", artifacttest.Calls("a {} !x"), artifacttest.Calls("a {} !y"),
			[]FailedCall{te(1, "a", "y")}, []FailedCall{te(1, "a", "x")}},
		{"a failing call is removed", artifacttest.Calls("a {} !x", "b {} 2"), artifacttest.Calls("b {} 2"),
			nil, []FailedCall{te(1, "a", "x")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkErrorChanges(t, tt.old, tt.fresh, tt.added, tt.gone) })
	}
	if _, _, ok := CallErrorChanges([]byte(`{"a":1}`), artifacttest.Calls("a {} 1")); ok {
		t.Error("an object read as calls.json")
	}
}

// checkErrorChanges checks the new and gone tool errors of two calls.json.
func checkErrorChanges(t *testing.T, old, fresh []byte, wantAdded, wantGone []FailedCall) {
	t.Helper()
	added, gone, ok := CallErrorChanges(old, fresh)
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
