package verifiertest

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestParseRejectsMalformedFiles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, data, want string
	}{
		{"not an array", `{"name":"x"}`, "not a candidate file"},
		{"empty", `[]`, "no candidates"},
		{"a setup field", `[{"name":"a","why":"b","setup":{"x":1},"calls":[],"expect":"pass"}]`, `unknown field "setup"`},
		{"no name", `[{"why":"b","calls":[],"expect":"pass"}]`, "has no name"},
		{"no why", `[{"name":"a","calls":[],"expect":"pass"}]`, "has no why"},
		{"bad verdict", `[{"name":"a","why":"b","calls":[],"expect":"passed"}]`, `expect "passed" is not pass, fail or inconclusive`},
		{"duplicate names", `[{"name":"a","why":"b","expect":"pass"},{"name":"a","why":"c","expect":"fail"}]`, `two candidates named "a"`},
		{"violations on a pass", `[{"name":"a","why":"b","expect":"pass","violations":["x"]}]`, "a confirmed violation always fails"},
		{"too many tool errors", `[{"name":"a","why":"b","expect":"fail","toolErrors":1}]`, "toolErrors 1 is not between 0 and its 0 calls"},
		{"a call without a tool", `[{"name":"a","why":"b","expect":"fail","calls":[{"input":{}}]}]`, "call 1 names no tool"},
		{"two values", `[{"name":"a","why":"b","expect":"fail"}] []`, "more than one JSON value"},
	}
	for _, tc := range tests {
		_, err := Parse("candidates/TASK-001.json", []byte(tc.data))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

func TestLoadReadsEveryFileSortedByTask(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"candidates/TASK-002.json": {Data: []byte(`[{"name":"b","why":"w","expect":"fail"}]`)},
		"candidates/TASK-001.json": {Data: []byte(`[{"name":"a","why":"w","expect":"pass","calls":[{"tool":"t","input":{"x":1}}],"output":"done"}]`)},
		"candidates/notes.txt":     {Data: []byte(`not a candidate file`)},
	}
	files, err := Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 || files[0].Task != "TASK-001" || files[1].Task != "TASK-002" {
		t.Fatalf("files %+v, want TASK-001 then TASK-002", files)
	}
	c := files[0].Candidates[0]
	if s := c.Script(); len(s.Calls) != 1 || s.Calls[0].Tool != "t" || string(s.Calls[0].Input) != `{"x":1}` || string(s.Output) != `"done"` {
		t.Errorf("script %+v does not carry the candidate's calls and output", s)
	}
	if files, err := Load(nil); err != nil || files != nil {
		t.Errorf("Load(nil) = %v, %v; want no files and no error", files, err)
	}
}
