package oracle

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDiffFileNamesInvisibleDifferences(t *testing.T) {
	base := "{\n  \"a\": 1,\n  \"b\": [\n    true\n  ]\n}\n"
	tests := []struct {
		name  string
		fresh string
		want  []string
	}{
		{"CRLF", strings.ReplaceAll(base, "\n", "\r\n"), []string{"CRLF line ends only in the new file"}},
		{"BOM", "\xef\xbb\xbf" + base, []string{"byte-order mark only in the new file"}},
		{"final newline", strings.TrimSuffix(base, "\n"), []string{"final newline only in the old file"}},
		{"trailing spaces", strings.Replace(base, "1,", "1, ", 1), []string{"trailing spaces only in the new file"}},
		{"key order", "{\n  \"b\": [\n    true\n  ],\n  \"a\": 1\n}\n", []string{"key order"}},
		{"indentation", "{\"a\":1,\"b\":[true]}\n", []string{"indentation, spacing or escaping"}},
		{"escaping", strings.Replace(base, `"a"`, `"\u0061"`, 1), []string{"indentation, spacing or escaping"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := DiffFile("result.json", []byte(base), []byte(tt.fresh))
			if d == nil {
				t.Fatal("no difference found")
			}
			if len(d.Changes) != 0 {
				t.Errorf("changes %+v for an invisible difference", d.Changes)
			}
			if diff := cmp.Diff(tt.want, d.Invisible); diff != "" {
				t.Errorf("invisible (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDiffFileChanges(t *testing.T) {
	d := DiffFile("result.json",
		[]byte(`{"passed":true,"reward":1,"checks":[{"detail":"2 of 2"}],"gone":1}`),
		[]byte(`{"passed":false,"reward":0.5,"checks":[{"detail":"1 of 2"}],"new":null}`))
	want := []Change{
		{Op: ChangeReplace, Path: "/checks/0/detail", From: json.RawMessage(`"2 of 2"`), To: json.RawMessage(`"1 of 2"`)},
		{Op: ChangeRemove, Path: "/gone", From: json.RawMessage(`1`)},
		{Op: ChangeAdd, Path: "/new", To: json.RawMessage(`null`)},
		{Op: ChangeReplace, Path: "/passed", From: json.RawMessage(`true`), To: json.RawMessage(`false`)},
		{Op: ChangeReplace, Path: "/reward", From: json.RawMessage(`1`), To: json.RawMessage(`0.5`)},
	}
	if diff := cmp.Diff(want, d.Changes); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	if DiffFile("x", []byte("{}\n"), []byte("{}\n")) != nil {
		t.Error("equal bytes gave a difference")
	}
	if d := DiffFile("x", []byte("{"), []byte("{}")); d == nil || d.State != FileUnreadable || d.Error == "" {
		t.Errorf("unreadable side: %+v", d)
	}
}

// FuzzDiffFile checks the semantic diff never crashes, reports a difference
// exactly when the bytes differ, and explains every difference of valid JSON
// with a change or an invisible difference.
func FuzzDiffFile(f *testing.F) {
	f.Add([]byte(`{"a":1}`), []byte(`{"a":2}`))
	f.Add([]byte("{\"a\":1}\n"), []byte("{\"a\":1}\r\n"))
	f.Add([]byte(`[1,2,3]`), []byte(`[3,2,1]`))
	f.Add([]byte(`{"a":{"b":[{"c":1}]}}`), []byte(`{"a":{"b":[{"c":1},{"d":2}]}}`))
	f.Add([]byte("\xef\xbb\xbf{}"), []byte(`{}`))
	f.Add([]byte(`{"n":1.0}`), []byte(`{"n":1}`))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		d := DiffFile("f.json", a, b)
		if (d == nil) != (string(a) == string(b)) {
			t.Fatalf("DiffFile(%q, %q) = %+v", a, b, d)
		}
		if d == nil {
			return
		}
		if d.State == "changed" && len(d.Changes) == 0 && len(d.Invisible) == 0 {
			t.Fatalf("unexplained difference between %q and %q", a, b)
		}
		for _, c := range d.Changes {
			if c.Path != "" && c.Path[0] != '/' {
				t.Fatalf("path %q is not a JSON Pointer", c.Path)
			}
		}
	})
}
