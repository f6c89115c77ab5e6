package oracle

import (
	"testing"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/oracle/change"
	"github.com/agent-oracle/oracle/oracle/internal/artifacttest"
	"github.com/agent-oracle/oracle/oracle/report"
	"github.com/google/go-cmp/cmp"
)

// TestSetToolErrors: the new and gone errors come from the two calls.json
// when both are there and are lists of calls, and otherwise every error of
// the fresh trace, said to come from it; with neither, none.
func TestSetToolErrors(t *testing.T) {
	oldCalls := artifacttest.Calls(`a {} 1`)
	freshCalls := artifacttest.Calls(`a {} !x`)
	trace := []byte(`{"type":"tool_result","tool":"t","isError":true,"output":{"code":"from_trace"}}` + "\n")
	fromCalls := &report.Case{NewToolErrors: []change.FailedCall{{Call: 1, Tool: "a", Code: "x", Message: "m"}}, ToolErrorsFrom: "calls"}
	fromTrace := &report.Case{ToolErrors: []change.FailedCall{{Tool: "t", Code: "from_trace"}}, ToolErrorsFrom: "trace"}
	tests := []struct {
		name                     string
		oldCalls, freshCalls, tr []byte
		want                     *report.Case
	}{
		{"both calls", oldCalls, freshCalls, trace, fromCalls},
		{"both calls, no trace", oldCalls, freshCalls, nil, fromCalls},
		{"no baseline calls", nil, freshCalls, trace, fromTrace},
		{"no fresh calls", oldCalls, nil, trace, fromTrace},
		{"calls that are no list", []byte(`{}`), freshCalls, trace, fromTrace},
		{"no calls, no trace", nil, nil, nil, &report.Case{}},
	}
	for _, tt := range tests {
		cr := &report.Case{}
		setToolErrors(cr, tt.oldCalls, tt.freshCalls, tt.tr)
		if diff := cmp.Diff(tt.want, cr); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestCompare: a pending case is compared with its baseline as accept
// would apply it: an artifact that is not pending is no change, and the new
// tool errors come from calls.json.
func TestCompare(t *testing.T) {
	k := baseline.Key{Env: "e", Agent: "a", Task: "T"}
	result := func(verdict string) []byte { return []byte(`{"verdict":"` + verdict + `","reward":1}` + "\n") }
	frozen := baseline.Entry{Result: result("pass"), StateDiff: []byte("{}\n"), Calls: artifacttest.Calls("a {} 1", "b {} 2")}
	tests := []struct {
		name   string
		fresh  baseline.Entry
		status report.Status
		files  []string
		added  []change.FailedCall
	}{
		{"only result.json pending, the same", baseline.Entry{Result: result("pass")}, report.StatusUnchanged, nil, nil},
		{"only result.json pending, changed", baseline.Entry{Result: result("fail")}, report.StatusChanged, []string{"result.json"}, nil},
		{"a call now fails", baseline.Entry{Result: result("pass"), Calls: artifacttest.Calls("a {} 1", "b {} !not_found")}, report.StatusChanged,
			[]string{"calls.json"}, []change.FailedCall{{Call: 2, Tool: "b", Code: "not_found", Message: "m"}}},
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
