package artifact

import (
	"strings"
	"testing"
)

// TestTable walks the table of artifacts: each has one name and one file,
// each file and each baseline file of it (<TASK>.<file>) leads back to its
// row, and the frozen ones are the ones whose file holds no time.
func TestTable(t *testing.T) {
	names, files := map[string]bool{}, map[string]bool{}
	for _, a := range All {
		if a.Name == "" || a.File == "" || a.About == "" {
			t.Errorf("row %+v is incomplete", a)
		}
		if names[a.Name] || files[a.File] {
			t.Errorf("%s or %s is in two rows", a.Name, a.File)
		}
		names[a.Name], files[a.File] = true, true
		if !strings.HasPrefix(a.File, a.Name+".") {
			t.Errorf("%s is kept in %s: a file is its name with an extension", a.Name, a.File)
		}
		for _, file := range []string{a.File, "TASK-001." + a.File} {
			if got, ok := Of(file); !ok || got.Name != a.Name {
				t.Errorf("Of(%s) = %v, %v; want %s", file, got.Name, ok, a.Name)
			}
		}
		if got, ok := Named(a.Name); !ok || got.File != a.File {
			t.Errorf("Named(%s) = %v, %v", a.Name, got, ok)
		}
		if a.Frozen == (a.File == Run || a.File == Trace) {
			t.Errorf("%s frozen = %v: only the artifacts without times are frozen", a.Name, a.Frozen)
		}
	}
	if _, ok := Of("notes.txt"); ok {
		t.Error("Of found an artifact in notes.txt")
	}
	if got := strings.Join(FrozenFiles(), " "); got != "result.json state-diff.json calls.json" {
		t.Errorf("FrozenFiles = %s", got)
	}
	if got := strings.Join(FrozenNames(), " "); got != "result state-diff calls" {
		t.Errorf("FrozenNames = %s", got)
	}
}
