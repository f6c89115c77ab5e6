package env

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"
	"unsafe"

	"github.com/google/go-cmp/cmp"
)

func TestParseTask(t *testing.T) {
	tests := []struct {
		name string
		in   string
		err  string
	}{
		{"ok", `{"id":"TASK-001","title":"t","instruction":"i","verifierId":"VER-001","difficulty":"easy","entities":["A"]}`, ""},
		{"missing fields", `{"id":"TASK-001","title":"t"}`, "missing required field instruction, verifierId; add it to the task file"},
		{"blank field", `{"id":"TASK-001","title":" ","instruction":"i","verifierId":"V"}`, "missing required field title"},
		{"unknown field", `{"id":"TASK-001","title":"t","instruction":"i","verifierId":"V","verifier":"x"}`, `unknown field "verifier"`},
		{"not JSON", `id: TASK-001`, "not a valid task file"},
		{"key in another case", `{"ID":"TASK-001","title":"t","instruction":"i","verifierId":"V"}`, `not a valid task file: key "ID" is spelt "id"; keys match exactly, letter case included`},
		{"key in another case camel", `{"id":"TASK-001","title":"t","instruction":"i","verifierID":"V"}`, `key "verifierID" is spelt "verifierId"`},
		{"key twice", `{"id":"TASK-001","title":"t","instruction":"i","verifierId":"V","instruction":"j"}`, `key "instruction" is given twice; keep one`},
		{"two values", `{"id":"T","title":"t","instruction":"i","verifierId":"V"} {}`, "more than one JSON value"},
		{"bad difficulty", `{"id":"T","title":"t","instruction":"i","verifierId":"V","difficulty":"extreme"}`, "difficulty"},
		{"id leaves its folder", `{"id":"../T","title":"t","instruction":"i","verifierId":"V"}`, "path separator"},
		{"id with NUL", `{"id":"T\u0000","title":"t","instruction":"i","verifierId":"V"}`, "control characters"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseTask("tasks/x.json", []byte(tt.in))
			switch {
			case tt.err == "" && err != nil:
				t.Fatalf("ParseTask: %v", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Fatalf("ParseTask = %v, want an error containing %q", err, tt.err)
			case err != nil && !strings.HasPrefix(err.Error(), "tasks/x.json: "):
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}

func TestLoadTasksSortsAndRejectsDuplicates(t *testing.T) {
	task := func(id string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte(`{"id":"` + id + `","title":"t","instruction":"i","verifierId":"V"}`)}
	}
	tasks, err := LoadTasks(fstest.MapFS{"tasks/b.json": task("TASK-002"), "tasks/a.json": task("TASK-010"), "tasks/readme.md": {}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"TASK-002", "TASK-010"}, []string{tasks[0].ID, tasks[1].ID}); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	_, err = LoadTasks(fstest.MapFS{"tasks/a.json": task("TASK-001"), "tasks/b.json": task("TASK-001")})
	if err == nil || !strings.Contains(err.Error(), "duplicate task id TASK-001 (also in a.json)") {
		t.Errorf("LoadTasks with a duplicate = %v", err)
	}
}

// FuzzParseTask checks the task loader never crashes, and that what it
// accepts has every required field and survives a round trip.
func FuzzParseTask(f *testing.F) {
	f.Add([]byte(`{"id":"TASK-001","title":"t","instruction":"i","verifierId":"VER-001","difficulty":"easy","entities":["A"]}`))
	f.Add([]byte(`{"id":"TASK-001"}`))
	f.Add([]byte(`{"id":"../x","title":"t","instruction":"i","verifierId":"V"}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"id":"T","title":"t","instruction":"i","verifierId":"V","entities":null}`))
	f.Add([]byte(`{"id":"T","title":"t","instruction":"i","verifierId":"V","title":"u"}`))
	f.Add([]byte(`{"id":"T","title":"t\u00e9","instruction":"i","verifierId":"V","entities":["a",1]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		// what the one-pass reader takes, the strict decoder takes alike
		var fast Task
		if taskPlan.decode(data, unsafe.Pointer(&fast)) {
			strict, err := decodeTaskStrictly(data)
			if err != nil {
				t.Fatalf("read in one pass what the strict decoder refuses (%v): %q", err, data)
			}
			if diff := cmp.Diff(strict, fast); diff != "" {
				t.Fatalf("%q (-strict +one pass):\n%s", data, diff)
			}
		}
		task, err := ParseTask("tasks/f.json", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "tasks/f.json: ") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if strings.TrimSpace(task.ID) == "" || strings.TrimSpace(task.Title) == "" || strings.TrimSpace(task.Instruction) == "" || strings.TrimSpace(task.VerifierID) == "" {
			t.Fatalf("accepted a task with a blank required field: %+v", task)
		}
		if CheckName(task.ID) != nil {
			t.Fatalf("accepted an unsafe id %q", task.ID)
		}
		out, err := json.Marshal(task)
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseTask("tasks/f.json", out)
		if err != nil {
			t.Fatalf("round trip of %s: %v", out, err)
		}
		if diff := cmp.Diff(task, back, cmpEmptyAsNil); diff != "" {
			t.Fatalf("round trip changed the task (-first +second):\n%s", diff)
		}
	})
}

var cmpEmptyAsNil = cmp.Transformer("emptyAsNil", func(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
})

// A task file's variants are one task each, keyed <id>@<variant>, with the
// file's fields and initialState; names that cannot be file names, or a
// variant named twice, are errors.
func TestTaskVariants(t *testing.T) {
	fsys := fstest.MapFS{
		"tasks/TASK-001.json": {Data: []byte(`{"id":"TASK-001","title":"t","instruction":"i","verifierId":"VER-001","variants":["b","a"],"initialState":{"x":1}}`)},
		"tasks/TASK-002.json": {Data: []byte(`{"id":"TASK-002","title":"t","instruction":"i","verifierId":"VER-002","variant":"solo"}`)},
	}
	tasks, err := LoadTasks(fsys)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, task := range tasks {
		got = append(got, task.ID+" "+task.Variant+" "+task.BaseID()+" "+string(task.InitialState))
	}
	want := []string{`TASK-001@a a TASK-001 {"x":1}`, `TASK-001@b b TASK-001 {"x":1}`, `TASK-002 solo TASK-002 `}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tasks (-want +got):\n%s", diff)
	}
	for _, tt := range []struct{ file, want string }{
		{`"variants":["a","a"]`, "variant a is named twice"},
		{`"variants":["a/b"]`, "must not contain a path separator"},
		{`"variants":["a@b"]`, `holds "@"`},
		{`"variants":[""]`, "empty name"},
		{`"variant":"a","variants":["b"]`, `both "variant" and "variants"`},
	} {
		data := `{"id":"TASK-003","title":"t","instruction":"i","verifierId":"VER-003",` + tt.file + `}`
		if _, err := ParseTask("tasks/TASK-003.json", []byte(data)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.file, err, tt.want)
		}
	}
}
