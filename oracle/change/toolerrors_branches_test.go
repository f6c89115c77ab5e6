package change

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestToolErrorsOfTrace pins what is read from a trace: each tool_result
// with isError, in order, its code and message (or its output whole when
// that is not an object), and nothing else; at most maxToolErrors.
func TestToolErrorsOfTrace(t *testing.T) {
	trace := strings.Join([]string{
		`{"seq":1,"type":"run_start"}`,
		`{"seq":2,"type":"tool_result","tool":"a","isError":true,"output":{"code":"not_found","message":"no X"}}`,
		`{"seq":3,"type":"tool_result","tool":"b","isError":false,"output":{"code":"looks_like_one"}}`,
		`{"seq":4,"type":"tool_call","tool":"c","isError":true,"output":{"code":"x"}}`,
		`not JSON`,
		`{"seq":5,"type":"tool_result","tool":"d","isError":true,"output":"plain text"}`,
		`{"seq":6,"type":"tool_result","tool":"e","isError":true,"output":{"message":"no code"}}`,
		`{"seq":7,"type":"tool_result","tool":"f","isError":true,"output":{"code":"big","message":"` + strings.Repeat("m", 70<<10) + `"}}`,
	}, "\n") + "\n"
	got := ToolErrorsOf([]byte(trace))
	want := []FailedCall{
		{Tool: "a", Code: "not_found", Message: "no X"},
		{Tool: "d", Message: `"plain text"`},
		{Tool: "e", Message: "no code"},
		{Tool: "f", Code: "big", Message: strings.Repeat("m", 70<<10)},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	var many strings.Builder
	for i := range maxToolErrors + 5 {
		fmt.Fprintf(&many, `{"type":"tool_result","tool":"t%d","isError":true,"output":{"code":"c"}}`+"\n", i)
	}
	if got := ToolErrorsOf([]byte(many.String())); len(got) != maxToolErrors || got[maxToolErrors-1].Tool != fmt.Sprintf("t%d", maxToolErrors-1) {
		t.Errorf("%d errors of %d, the last %+v; want the first %d", len(got), maxToolErrors+5, got[len(got)-1], maxToolErrors)
	}
	// a trace of one long line without a final newline is read whole
	long := `{"type":"tool_result","tool":"g","isError":true,"output":{"code":"c","message":"` + strings.Repeat("z", 80<<10) + `"}}`
	if got := ToolErrorsOf([]byte(long)); len(got) != 1 || got[0].Code != "c" || len(got[0].Message) != 80<<10 {
		t.Errorf("one long line: %d errors", len(got))
	}
	if got := ToolErrorsOf(nil); got != nil {
		t.Errorf("no trace: %+v", got)
	}
}

// TestCallErrorChangesBranches: errors are compared as canonical JSON (key
// order and spacing do not make an error new), the lists are capped, and
// an error that is not an object is named whole.
func TestCallErrorChangesBranches(t *testing.T) {
	call := func(tool, errJSON string) string {
		if errJSON == "" {
			return `{"tool":"` + tool + `","input":{},"output":1}`
		}
		return `{"tool":"` + tool + `","input":{},"error":` + errJSON + `}`
	}
	list := func(calls ...string) []byte { return []byte("[" + strings.Join(calls, ",") + "]") }
	tests := []struct {
		name        string
		old, fresh  []byte
		added, gone []FailedCall
	}{
		{"key order and spacing", list(call("a", `{"code":"x","message":"m"}`)), list(call("a", `{ "message": "m", "code": "x" }`)), nil, nil},
		{"error null is none", list(call("a", `null`)), list(call("a", "")), nil, nil},
		{"a new error of code only", list(call("a", "")), list(call("a", `{"code":"x"}`)), []FailedCall{{Call: 1, Tool: "a", Code: "x"}}, nil},
		{"a new error of message only", list(call("a", "")), list(call("a", `{"message":"m"}`)), []FailedCall{{Call: 1, Tool: "a", Message: "m"}}, nil},
		{"an error that is not an object", list(call("a", "")), list(call("a", `"boom"`)), []FailedCall{{Call: 1, Tool: "a", Message: `"boom"`}}, nil},
		{"an object error without code or message", list(call("a", "")), list(call("a", `{"details":{"k":1}}`)), []FailedCall{{Call: 1, Tool: "a", Message: `{"details":{"k":1}}`}}, nil},
		{"numbered in their own file", list(call("a", ""), call("b", `{"code":"x"}`)), list(call("c", ""), call("a", ""), call("b", `{"code":"y"}`)),
			[]FailedCall{{Call: 3, Tool: "b", Code: "y"}}, []FailedCall{{Call: 2, Tool: "b", Code: "x"}}},
		{"a new failing call added", list(call("a", "")), list(call("a", ""), call("z", `{"code":"q"}`)), []FailedCall{{Call: 2, Tool: "z", Code: "q"}}, nil},
		{"an error that moved with its call", list(call("a", `{"code":"x"}`), call("b", "")), list(call("b", ""), call("a", `{"code":"x"}`)),
			[]FailedCall{{Call: 2, Tool: "a", Code: "x"}}, []FailedCall{{Call: 1, Tool: "a", Code: "x"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkErrorChanges(t, tt.old, tt.fresh, tt.added, tt.gone) })
	}
	var old, fresh []string
	for i := range maxToolErrors + 3 {
		old = append(old, call(fmt.Sprintf("t%d", i), `{"code":"old"}`))
		fresh = append(fresh, call(fmt.Sprintf("t%d", i), `{"code":"new"}`))
	}
	added, gone, _ := CallErrorChanges(list(old...), list(fresh...))
	if len(added) != maxToolErrors || len(gone) != maxToolErrors || added[0].Call != 1 || gone[maxToolErrors-1].Call != maxToolErrors {
		t.Errorf("%d new and %d gone of %d; want the first %d of each", len(added), len(gone), maxToolErrors+3, maxToolErrors)
	}
	for _, pair := range [][2][]byte{{list(), []byte(`{}`)}, {[]byte(`{}`), list()}} {
		if _, _, ok := CallErrorChanges(pair[0], pair[1]); ok {
			t.Errorf("CallErrorChanges(%s, %s) read an object as calls.json", pair[0], pair[1])
		}
	}
}
