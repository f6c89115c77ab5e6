package redact

import (
	"slices"
	"strings"
	"testing"
)

func TestTally(t *testing.T) {
	r := parse(t, `[
		{"artifact": "result", "path": "/agentOutput", "pattern": "x", "replace": "[X]"},
		{"artifact": "result", "path": "/nothing"},
		{"artifact": "calls", "path": "/*/id"},
		{"artifact": "result", "path": "/toolCalls", "pattern": "1", "replace": "[one]"}
	]`)
	tally := r.Tally()
	for _, data := range []string{`{"agentOutput":"axb","toolCalls":1}`, `{"agentOutput":"ab","toolCalls":1}`} {
		res, err := r.Apply(Result, artifactJSON(t, data))
		if err != nil {
			t.Fatal(err)
		}
		tally.Add(Result, res)
	}
	tally.Add(Calls, Redacted{}) // absent: not counted
	if got, want := tally.Uses(), []RuleUse{{2, 1}, {0, 0}, {0, 0}, {0, 0}}; !slices.Equal(got, want) {
		t.Errorf("uses %v, want %v", got, want)
	}
	want := []string{
		"redact[1] (result /nothing) selects nothing in the result of 2 cases; fix the path or remove the rule",
		`redact[3] (result /toolCalls, pattern "1") selects no string in the result of 2 cases; fix the path or remove the rule`,
	}
	if got := tally.Warnings(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
