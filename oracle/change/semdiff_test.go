package change

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDiffFileNamesInvisibleDifferences(t *testing.T) {
	base := "{\n  \"a\": 1,\n  \"b\": [\n    \"x&y\"\n  ]\n}\n"
	tests := []struct {
		name  string
		fresh string
		want  []Invisible
	}{
		{"CRLF", strings.ReplaceAll(base, "\n", "\r\n"), []Invisible{{Kind: "CRLF line ends", Detail: "CRLF line ends only in the new file"}}},
		{"BOM", "\xef\xbb\xbf" + base, []Invisible{{Kind: "byte-order mark", Detail: "byte-order mark only in the new file"}}},
		{"final newline", strings.TrimSuffix(base, "\n"), []Invisible{{Kind: "final newline", Detail: "final newline only in the old file"}}},
		{"trailing spaces", strings.Replace(base, "1,", "1, ", 1), []Invisible{{Kind: "trailing spaces", Detail: "trailing spaces only in the new file"}}},
		{"key order", "{\n  \"b\": [\n    \"x&y\"\n  ],\n  \"a\": 1\n}\n", []Invisible{{Kind: "key order", Detail: "key order changed (a, b → b, a)"}}},
		{"indentation", "{\n    \"a\": 1,\n    \"b\": [\n        \"x&y\"\n    ]\n}\n", []Invisible{{Path: "/a", Kind: "spacing", Detail: "indentation or spacing changed"}}},
		{"compact", "{\"a\":1,\"b\":[\"x&y\"]}\n", []Invisible{{Path: "/a", Kind: "spacing", Detail: "indentation or spacing changed"}}},
		{"escaped key", strings.Replace(base, `"a"`, `"\u0061"`, 1), []Invisible{{Path: "/a", Kind: "escaping", Detail: `key: escaping of "a" changed (a → \u0061)`}}},
		{"escaped value", strings.Replace(base, `x&y`, `x\u0026y`, 1), []Invisible{{Path: "/b/0", Kind: "escaping", Detail: `escaping of "&" changed (& → \u0026)`}}},
		{"duplicate key", strings.Replace(base, `"a": 1,`, `"a": 2, "a": 1,`, 1), []Invisible{
			{Kind: "duplicate key", Detail: `duplicate key "a" in the top-level object of the new file (JSON keeps its last value)`},
		}},
		{"nested duplicate", "{\n  \"a\": 1,\n  \"b\": [\n    \"x&y\"\n  ],\n  \"c\": {\"d\": 1, \"d\": 1}\n}\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := DiffFile("result.json", []byte(base), []byte(tt.fresh))
			if d == nil {
				t.Fatal("no difference found")
			}
			if tt.name == "nested duplicate" {
				// a new key is a change; its duplicate is named with its path
				if len(d.Changes) != 1 || len(d.Invisible) != 1 || d.Invisible[0].Path != "/c" || d.Invisible[0].Kind != "duplicate key" {
					t.Errorf("changes %+v invisible %+v", d.Changes, d.Invisible)
				}
				return
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

func TestDiffFileWholeDocument(t *testing.T) {
	for _, tt := range []struct{ old, fresh string }{{"null\n", "{\"a\":1}\n"}, {"{\"a\":1}\n", "null\n"}, {"[1]\n", "{\"a\":1}\n"}, {"1\n", "\"x\"\n"}} {
		d := DiffFile("result.json", []byte(tt.old), []byte(tt.fresh))
		want := []Change{{Op: "replace", Path: "", From: json.RawMessage(strings.TrimSpace(tt.old)), To: json.RawMessage(strings.TrimSpace(tt.fresh))}}
		if diff := cmp.Diff(want, d.Changes); diff != "" {
			t.Errorf("%s → %s (-want +got):\n%s", tt.old, tt.fresh, diff)
		}
		if !d.Changes[0].WholeDocument() {
			t.Errorf("%s → %s: not the whole document", tt.old, tt.fresh)
		}
	}
}

func TestDiffFileLabelsChecks(t *testing.T) {
	old := `{"checks":[{"label":"A","passed":true},{"label":"B","passed":true},{"label":"C","passed":true}]}`
	fresh := `{"checks":[{"label":"A","passed":true},{"label":"C","passed":false}]}`
	d := DiffFile("result.json", []byte(old), []byte(fresh))
	got := map[string]string{}
	for _, c := range d.Changes {
		got[string(c.Op)+" "+c.Path] = c.Label
	}
	// jsondiff's LCS keeps check A and edits the second check into C; each
	// change names the check its path is about.
	want := map[string]string{"replace /checks/1/label": "C", "replace /checks/1/passed": "C", "remove /checks/2": "C"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
}

func TestDiffFileMembers(t *testing.T) {
	old := `{"scalars":[{"field":"clock","op":"replace","from":1,"to":2}],"collections":{"t":{"added":[{"id":"N","value":{"id":"N","s":"a b c"}}],"removed":[],"changed":[{"id":"X","changes":[{"path":"/s","op":"replace","from":"a","to":"b"}]}]}}}`
	fresh := `{"scalars":[{"field":"clock","op":"replace","from":1,"to":3}],"collections":{"t":{"added":[{"id":"N","value":{"id":"N","s":"a B c"}}],"removed":[{"id":"R","value":{"id":"R"}}],"changed":[{"id":"Y","changes":[{"path":"/s","op":"replace","from":"a","to":"b"}]}]}}}`
	d := DiffFile("TASK-001.state-diff.json", []byte(old), []byte(fresh))
	if len(d.Changes) != 0 {
		t.Fatalf("changes %+v, want members", d.Changes)
	}
	var got []string
	for _, m := range d.Members {
		got = append(got, m.Name()+": "+m.What())
	}
	want := []string{"scalar clock: changed differently", "t N: added differently", "t R: now removed", "t X: no longer changed", "t Y: now changed"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("members (-want +got):\n%s", diff)
	}
	n := d.Members[1]
	if len(n.Value) != 1 || n.Value[0].Path != "/s" || len(n.Value[0].Words) != 4 {
		t.Errorf("value diff of N: %+v", n.Value)
	}
	clock := d.Members[0].Fields
	if len(clock) != 1 || string(clock[0].Was.To) != "2" || string(clock[0].Now.To) != "3" {
		t.Errorf("clock: %+v", clock)
	}
	// Another shape (the original runner's ids only) is compared as JSON.
	d = DiffFile("state-diff.json", []byte(`{"collections":{"t":{"added":["A"]}}}`), []byte(`{"collections":{"t":{"added":["B"]}}}`))
	if len(d.Members) != 0 || len(d.Changes) != 1 {
		t.Errorf("ids-only state diff: %+v", d)
	}
}

func TestWordDiffWindows(t *testing.T) {
	long := strings.Repeat("word ", 40)
	spans := WordDiff(long+"end.", long+"the end.")
	var text []string
	for _, s := range spans {
		text = append(text, string(s.Op)+":"+s.Text)
	}
	want := []string{"elided:", "same:word word word word word word ", "inserted:the ", "same:end."}
	if diff := cmp.Diff(want, text); diff != "" {
		t.Errorf("spans (-want +got):\n%s", diff)
	}
	if spans[0].Skipped != len(long)-len("word word word word word word ") {
		t.Errorf("skipped %d", spans[0].Skipped)
	}
	// A short value is shown whole.
	if got := WordDiff("a b c", "a x c"); len(got) != 4 {
		t.Errorf("short: %+v", got)
	}
}

func TestDiffFileChanges(t *testing.T) {
	d := DiffFile("result.json",
		[]byte(`{"passed":true,"reward":1,"checks":[{"detail":"2 of 2"}],"gone":1}`),
		[]byte(`{"passed":false,"reward":0.5,"checks":[{"detail":"1 of 2"}],"new":null}`))
	want := []Change{
		{Op: "replace", Path: "/checks/0/detail", From: json.RawMessage(`"2 of 2"`), To: json.RawMessage(`"1 of 2"`),
			Words: []Span{{Op: Deleted, Text: "2"}, {Op: Inserted, Text: "1"}, {Op: Same, Text: " of 2"}}},
		{Op: "remove", Path: "/gone", From: json.RawMessage(`1`)},
		{Op: "add", Path: "/new", To: json.RawMessage(`null`)},
		{Op: "replace", Path: "/passed", From: json.RawMessage(`true`), To: json.RawMessage(`false`)},
		{Op: "replace", Path: "/reward", From: json.RawMessage(`1`), To: json.RawMessage(`0.5`)},
	}
	if diff := cmp.Diff(want, d.Changes); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	if DiffFile("x", []byte("{}\n"), []byte("{}\n")) != nil {
		t.Error("equal bytes gave a difference")
	}
	if d := DiffFile("x", []byte("{"), []byte("{}")); d == nil || d.State != "unreadable" || d.Error == "" {
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
	f.Add([]byte(`{"a":"x\u0026","a":1}`), []byte(`{"a":1}`))
	f.Add([]byte(`null`), []byte(`{"scalars":[],"collections":{}}`))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		d := DiffFile("f.json", a, b)
		if (d == nil) != (string(a) == string(b)) {
			t.Fatalf("DiffFile(%q, %q) = %+v", a, b, d)
		}
		if d == nil {
			return
		}
		if d.State == "changed" && len(d.Changes) == 0 && len(d.Members) == 0 && len(d.Invisible) == 0 {
			t.Fatalf("unexplained difference between %q and %q", a, b)
		}
		for _, c := range d.Changes {
			if c.Path != "" && c.Path[0] != '/' {
				t.Fatalf("path %q is not a JSON Pointer", c.Path)
			}
		}
	})
}
