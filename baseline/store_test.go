package baseline

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-oracle/oracle/internal/artifact"
	"github.com/google/go-cmp/cmp"
)

var key = Key{"crm", "solver", "TASK-001"}

func TestWriteReadList(t *testing.T) {
	s := &Store{Root: t.TempDir()}
	e := Entry{Result: []byte("{\n  \"passed\": true\n}\n"), StateDiff: []byte("{}\n")}
	if res, err := s.Write(key, e); err != nil || res != Written {
		t.Fatalf("Write = %v, %v", res, err)
	}
	if res, err := s.Write(key, e); err != nil || res != Unchanged {
		t.Fatalf("second Write = %v, %v; want Unchanged", res, err)
	}
	got, err := s.Read(key)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(e, got); diff != "" {
		t.Errorf("Read (-want +got):\n%s", diff)
	}
	other := Key{"calendar", "solver", "TASK-002"}
	if _, err := s.Write(other, e); err != nil {
		t.Fatal(err)
	}
	keys, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Key{other, key}, keys); diff != "" {
		t.Errorf("List (-want +got):\n%s", diff)
	}
	if err := s.Remove(other); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Read(other); !errors.Is(err, ErrNotFound) {
		t.Errorf("Read after Remove = %v", err)
	}
	if _, err := os.Stat(filepath.Join(s.Root, "calendar")); !os.IsNotExist(err) {
		t.Errorf("empty folders left after Remove")
	}
}

func TestListOfMissingStore(t *testing.T) {
	s := &Store{Root: filepath.Join(t.TempDir(), "nothing")}
	keys, err := s.List()
	if err != nil || len(keys) != 0 {
		t.Errorf("List = %v, %v", keys, err)
	}
}

func TestReadRejectsBadFiles(t *testing.T) {
	tests := []struct {
		name  string
		setup func(path string) error
		want  string
	}{
		{"truncated", func(p string) error { return os.WriteFile(p, []byte("{\n  \"passed\": tr"), 0o644) }, "is not JSON"},
		{"not JSON", func(p string) error { return os.WriteFile(p, []byte("passed: true\n"), 0o644) }, "is not JSON"},
		{"empty", func(p string) error { return os.WriteFile(p, nil, 0o644) }, "is empty"},
		{"BOM", func(p string) error { return os.WriteFile(p, []byte("\xef\xbb\xbf{}\n"), 0o644) }, "byte-order mark"},
		{"CRLF", func(p string) error { return os.WriteFile(p, []byte("{\r\n  \"a\": 1\r\n}\r\n"), 0o644) }, "CRLF"},
		{"folder", func(p string) error { return os.Mkdir(p, 0o755) }, "is a folder"},
		{"deep", func(p string) error {
			return os.WriteFile(p, []byte(strings.Repeat("[", 100000)+strings.Repeat("]", 100000)), 0o644)
		}, "nested too deep"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Store{Root: t.TempDir()}
			path := s.Path(key, "result.json")
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := tt.setup(path); err != nil {
				t.Fatal(err)
			}
			_, err := s.Read(key)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), path) {
				t.Fatalf("Read = %v, want an error naming %s and saying %q", err, path, tt.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err)
			}
		})
	}
}

func TestFailedWriteLeavesOldBaseline(t *testing.T) {
	s := &Store{Root: t.TempDir()}
	old := Entry{Result: []byte("{\"v\": 1}\n"), StateDiff: []byte("{}\n")}
	if _, err := s.Write(key, old); err != nil {
		t.Fatal(err)
	}
	// a write that fails halfway, as a full disk would
	s.writeFile = func(f *os.File, data []byte) (int, error) {
		n, _ := f.Write(data[:len(data)/2])
		return n, errors.New("no space left on device")
	}
	_, err := s.Write(key, Entry{Result: []byte("{\"v\": 2, \"long\": \"xxxxxxxxxxxxxxxx\"}\n"), StateDiff: []byte("{}\n")})
	if err == nil || !strings.Contains(err.Error(), "no space left") {
		t.Fatalf("Write = %v", err)
	}
	got, err := s.Read(key)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(old, got); diff != "" {
		t.Errorf("baseline after a failed write (-old +got):\n%s", diff)
	}
	entries, _ := os.ReadDir(filepath.Dir(s.Path(key, "result.json")))
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

func TestLockIsExclusive(t *testing.T) {
	s := &Store{Root: t.TempDir()}
	unlock, err := s.Lock()
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Lock()
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "process") {
		t.Fatalf("second Lock = %v, want ErrLocked naming the holder", err)
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	unlock2, err := s.Lock()
	if err != nil {
		t.Fatalf("Lock after unlock = %v", err)
	}
	unlock2()
}

func TestParseKey(t *testing.T) {
	for _, bad := range []string{"a/b", "a/b/c/d", "../b/c", "a/../c", "a/b/\x00", "/b/c"} {
		if _, err := ParseKey(bad); err == nil {
			t.Errorf("ParseKey(%q) succeeded", bad)
		}
	}
	if k, err := ParseKey("crm/solver/TASK-001"); err != nil || k != key {
		t.Errorf("ParseKey = %v, %v", k, err)
	}
}

func TestFilesFor(t *testing.T) {
	tests := []struct {
		in   []string
		want []string
		err  string
	}{
		{nil, Files, ""},
		{[]string{"calls", "result"}, []string{"result.json", "calls.json"}, ""},
		{[]string{"state-diff"}, []string{"state-diff.json"}, ""},
		{[]string{}, nil, "names no artifact"},
		{[]string{"run"}, nil, `unknown artifact "run"`},
	}
	for _, tt := range tests {
		got, err := FilesFor(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("FilesFor(%q) = %v, want an error containing %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("FilesFor(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	// env.BaselineArtifacts named as the runner names their files
	if !slices.Equal(Files, []string{artifact.Result, artifact.StateDiff, artifact.Calls}) {
		t.Errorf("Files = %q, want the three artifact files in report order", Files)
	}
}

// Lock removes the temporary files of a writer killed while it held the
// lock (its pid still in the lock file), and does not walk the store after
// a clean unlock.
func TestLockRemovesWhatAKilledWriterLeft(t *testing.T) {
	s := &Store{Root: t.TempDir()}
	if _, err := s.Write(key, Entry{Result: []byte("{}\n"), StateDiff: []byte("{}\n")}); err != nil {
		t.Fatal(err)
	}
	stray := filepath.Join(filepath.Dir(s.Path(key, "result.json")), ".result.json.tmp-4242-1")
	leave := func() {
		t.Helper()
		if err := os.WriteFile(stray, []byte("{\"v\""), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	exists := func() bool {
		_, err := os.Lstat(stray)
		return err == nil
	}

	leave()
	// a writer killed while it held the lock: its holder file is still there
	if err := os.WriteFile(filepath.Join(s.Root, ".lock.holder"), []byte("4242\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	unlock, err := s.Lock()
	if err != nil {
		t.Fatal(err)
	}
	if exists() {
		t.Error("the temporary file of a killed writer is still there")
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	// after a clean unlock nothing is walked: a file that is not a lock
	// holder's stays
	leave()
	if unlock, err = s.Lock(); err != nil {
		t.Fatal(err)
	}
	defer unlock()
	if !exists() {
		t.Error("Lock walked the store after a clean unlock")
	}
}
