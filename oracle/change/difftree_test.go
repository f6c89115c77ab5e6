package change

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// tree writes files (path → content) under a new folder and returns it.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, data := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// pathStates writes a comparison as "path state" lines.
func pathStates(diffs []PathDiff) []string {
	var out []string
	for _, d := range diffs {
		out = append(out, d.Path+" "+string(d.Diff.State))
	}
	return out
}

// TestDiffPathsFolders pins which files of two folders are compared and
// how: every *.json file, in subfolders too, by relative path in sorted
// order, present on one side only as added or removed; run.json and *.jsonl
// only with all; hidden files and folders, and other files, never.
func TestDiffPathsFolders(t *testing.T) {
	a := tree(t, map[string]string{
		"result.json": `{"a":1}`, "same.json": `{}`, "gone.json": `{}`, "sub/x.json": `{"x":1}`, "run.json": `{"t":1}`,
		"trace.jsonl": `{"s":1}` + "\n", ".hidden.json": `{"h":1}`, ".git/c.json": `{"c":1}`, "notes.txt": "a",
	})
	b := tree(t, map[string]string{
		"result.json": `{"a":2}`, "same.json": `{}`, "new.json": `{}`, "sub/x.json": `{"x":2}`, "run.json": `{"t":2}`,
		"trace.jsonl": `{"s":2}` + "\n", ".hidden.json": `{"h":2}`, ".git/c.json": `{"c":2}`, "notes.txt": "b",
	})
	diffs, err := DiffPaths(a, b, false)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"gone.json removed", "new.json added", "result.json changed", "sub/x.json changed"}, pathStates(diffs)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	diffs, err = DiffPaths(a, b, true)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"gone.json removed", "new.json added", "result.json changed", "run.json changed", "sub/x.json changed", "trace.jsonl changed"}, pathStates(diffs)); diff != "" {
		t.Errorf("with all (-want +got):\n%s", diff)
	}
	if got := diffs[5].Diff.Changes; len(got) != 1 || got[0].Path != "/0/s" {
		t.Errorf("trace.jsonl changes %+v, want /0/s", got)
	}
	same, err := DiffPaths(a, a, true)
	if err != nil || same != nil {
		t.Errorf("a folder against itself: %v, %v", same, err)
	}
}

// TestDiffPathsFiles: two files are compared under the second's name; a
// file against a folder, a missing path or a file that is not JSON is an
// error naming it.
func TestDiffPathsFiles(t *testing.T) {
	d := tree(t, map[string]string{
		"a.json": `{"a":1}`, "b/result.json": `{"a":2}`, "c.json": `{"a":1}`, "bad.json": `{`, "x.jsonl": `{"a":1}` + "\n" + `{"b":2}` + "\n",
		"y.jsonl": "\xef\xbb\xbf" + `{"a":1}` + "\r\n\r\n" + `{"b":3}` + "\r\n", "z.jsonl": `{"a":1}` + "\n" + `nope` + "\n",
		"x2.jsonl": `{"a":1}` + "\n" + `{ "b":2 }` + "\n", "dir/k.json": `{}`,
	})
	p := func(name string) string { return filepath.Join(d, name) }
	diffs, err := DiffPaths(p("a.json"), p("b/result.json"), false)
	if err != nil || len(diffs) != 1 || diffs[0].Path != "result.json" || diffs[0].Diff.File != "result.json" || diffs[0].Diff.Changes[0].Path != "/a" {
		t.Errorf("two files: %+v, %v", diffs, err)
	}
	if diffs, err := DiffPaths(p("a.json"), p("c.json"), false); err != nil || diffs != nil {
		t.Errorf("equal files: %+v, %v", diffs, err)
	}
	diffs, err = DiffPaths(p("x.jsonl"), p("y.jsonl"), false)
	if err != nil || len(diffs) != 1 || len(diffs[0].Diff.Changes) != 1 || diffs[0].Diff.Changes[0].Path != "/1/b" || len(diffs[0].Diff.Invisible) == 0 {
		t.Errorf("JSON Lines: %+v, %v", diffs, err)
	}
	// the same lines in other bytes: changed, with what is invisible
	diffs, err = DiffPaths(p("x.jsonl"), p("x2.jsonl"), false)
	if err != nil || len(diffs) != 1 || diffs[0].Diff.State != FileChanged || len(diffs[0].Diff.Changes) != 0 {
		t.Errorf("JSON Lines, other spacing: %+v, %v", diffs, err)
	}
	for _, tt := range []struct{ a, b, want string }{
		{p("a.json"), p("dir"), "diff: compare a file with a file or a folder with a folder; "},
		{p("dir"), p("a.json"), "diff: compare a file with a file or a folder with a folder; "},
		{p("nothing.json"), p("a.json"), "diff: "},
		{p("a.json"), p("nothing.json"), "diff: "},
		{p("bad.json"), p("a.json"), "diff: " + p("bad.json") + " is not JSON: "},
		{p("a.json"), p("bad.json"), "diff: " + p("bad.json") + " is not JSON: "},
		{p("x.jsonl"), p("z.jsonl"), "diff: " + p("z.jsonl") + " is not JSON Lines: line 2: "},
	} {
		if _, err := DiffPaths(tt.a, tt.b, false); err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("DiffPaths(%s, %s) = %v, want %q", tt.a, tt.b, err, tt.want)
		}
	}
	// in folders, the error is the first bad file's in name order
	a := tree(t, map[string]string{"a.json": `{`, "b.json": `{`})
	b := tree(t, map[string]string{"a.json": `{}`, "b.json": `{}`})
	if _, err := DiffPaths(a, b, false); err == nil || !strings.Contains(err.Error(), filepath.Join(a, "a.json")) {
		t.Errorf("folders with bad files: %v", err)
	}
	if _, err := DiffPaths(b, a, false); err == nil || !strings.Contains(err.Error(), filepath.Join(a, "a.json")) {
		t.Errorf("folders with bad files, B bad: %v", err)
	}
}

func TestJSONLinesArray(t *testing.T) {
	for _, tt := range []struct{ in, want, err string }{
		{"", "[]", ""},
		{"\n\n", "[]", ""},
		{`{"a":1}`, `[{"a":1}]`, ""},
		{"\xef\xbb\xbf" + `1` + "\r\n" + ` 2 ` + "\n\n" + `"x"`, `[1,2,"x"]`, ""},
		{"1\n{\n", "", "line 2: "},
		{"1 2\n", "", "line 1: "},
	} {
		got, err := jsonLinesArray([]byte(tt.in))
		switch {
		case tt.err != "":
			if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
				t.Errorf("jsonLinesArray(%q) = %s, %v; want an error %q", tt.in, got, err, tt.err)
			}
		case err != nil || string(got) != tt.want:
			t.Errorf("jsonLinesArray(%q) = %s, %v; want %s", tt.in, got, err, tt.want)
		}
	}
	// diffOperands: JSON Lines on one side only are added, not compared by line
	if d := diffOperands("t.jsonl", nil, []byte("1\n")); d == nil || d.State != FileAdded {
		t.Errorf("one side: %+v", d)
	}
	if d := diffOperands("t.jsonl", []byte("1\n"), []byte("1\n")); d != nil {
		t.Errorf("same bytes: %+v", d)
	}
	// the same lines in other line ends: changed, the CRLF named, no change
	if d := diffOperands("t.jsonl", []byte("1\n2\n"), []byte("1\r\n2\r\n")); d == nil || d.State != FileChanged || len(d.Changes) != 0 ||
		len(d.Invisible) != 1 || d.Invisible[0].Kind != "CRLF line ends" {
		t.Errorf("CRLF only: %+v", d)
	}
	if d := diffOperands("t.json", []byte("[1]\n"), []byte("[2]\n")); d == nil || d.Changes[0].Path != "/0" {
		t.Errorf("not JSON Lines: %+v", d)
	}
}

// TestDiffRunAgainstCase: a run folder against a case folder, either
// order, is compared with its task's files there, named as the case folder
// names them; anything else is compared file by file.
func TestDiffRunAgainstCase(t *testing.T) {
	run := tree(t, map[string]string{
		"result.json": `{"r":1}`, "state-diff.json": `{"s":1}`, "calls.json": `[]`, "run.json": `{"taskId":"T-2"}`, "trace.jsonl": `{"x":1}` + "\n",
	})
	cases := tree(t, map[string]string{
		"T-1.result.json": `{"r":9}`, "T-2.result.json": `{"r":2}`, "T-2.state-diff.json": `{"s":1}`, "T-2.trace.jsonl": `{"x":2}` + "\n",
	})
	diffs, err := DiffPaths(run, cases, false)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"T-2.result.json changed"}, pathStates(diffs)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if c := diffs[0].Diff.Changes; len(c) != 1 || string(c[0].From) != "1" || string(c[0].To) != "2" {
		t.Errorf("run → case: %+v", c)
	}
	diffs, err = DiffPaths(cases, run, true)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"T-2.result.json changed", "T-2.trace.jsonl changed"}, pathStates(diffs)); diff != "" {
		t.Errorf("with all (-want +got):\n%s", diff)
	}
	if c := diffs[0].Diff.Changes; len(c) != 1 || string(c[0].From) != "2" || string(c[0].To) != "1" {
		t.Errorf("case → run: %+v", c)
	}
	// the task from the trace when there is no run.json
	if err := os.Remove(filepath.Join(run, "run.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(run, "trace.jsonl"), []byte(`{"type":"run_start","environment":"e","task":{"id":"T-1"}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	diffs, err = DiffPaths(run, cases, false)
	if err != nil || len(diffs) != 1 || diffs[0].Path != "T-1.result.json" {
		t.Errorf("task from the trace: %+v, %v", diffs, err)
	}
	// a task the case folder holds nothing of, or none at all
	if err := os.WriteFile(filepath.Join(run, "run.json"), []byte(`{"taskId":"T-7"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := DiffPaths(run, cases, false); err == nil || !strings.Contains(err.Error(), "holds no case T-7, the task of the run "+run+" (it holds T-1, T-2)") {
		t.Errorf("an unknown task: %v", err)
	}
	for _, bad := range []string{`{"taskId":"../T-1"}`, `{}`, `[`} {
		if err := os.WriteFile(filepath.Join(run, "run.json"), []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Remove(filepath.Join(run, "trace.jsonl"))
		if _, err := DiffPaths(run, cases, false); err == nil {
			t.Errorf("run.json %s: no error", bad)
		}
	}
	// two run folders and two case folders: file by file
	other := tree(t, map[string]string{"result.json": `{"r":3}`})
	if diffs, err := DiffPaths(run, other, false); err != nil || len(pathStates(diffs)) != 3 {
		t.Errorf("two runs: %v, %v", pathStates(diffs), err)
	}
	plain := tree(t, map[string]string{"notes.json": `{}`})
	if diffs, err := DiffPaths(plain, cases, false); err != nil || len(diffs) != 4 {
		t.Errorf("a plain folder against a case folder: %v, %v", pathStates(diffs), err)
	}
}
