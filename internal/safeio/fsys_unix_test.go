//go:build unix

package safeio

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"testing/fstest"
	"time"
)

// hostileFolder holds a regular file and, beside it, each thing a reader
// must refuse at once: a FIFO, a link to /dev/zero, a link to a FIFO, a
// socket. A FIFO is also in place of a folder.
func hostileFolder(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dir, "tasks"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "tasks", "ok.json"), []byte("{}\n"), 0o644))
	must(syscall.Mkfifo(filepath.Join(dir, "tasks", "fifo.json"), 0o644))
	must(os.Symlink("/dev/zero", filepath.Join(dir, "tasks", "zero.json")))
	must(os.Symlink(filepath.Join(dir, "tasks", "fifo.json"), filepath.Join(dir, "tasks", "to-fifo.json")))
	must(syscall.Mkfifo(filepath.Join(dir, "fifo-folder"), 0o644))
	return dir
}

// within fails the test when f takes longer than a few seconds: a reader
// that waits on a FIFO never returns.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s waits (on a FIFO?)", what)
	}
}

// TestReadersRefuseWhatIsNotAFile: DirFS, ReadFS (over DirFS and
// os.DirFS) and ReadDir read the regular file and refuse, at once and
// naming it, a FIFO, a link to /dev/zero or to a FIFO, and a FIFO in place
// of a folder.
func TestReadersRefuseWhatIsNotAFile(t *testing.T) {
	dir := hostileFolder(t)
	for name, fsys := range map[string]fs.FS{"DirFS": DirFS(dir), "os.DirFS": os.DirFS(dir)} {
		if data, err := ReadFS(fsys, "tasks/ok.json"); err != nil || string(data) != "{}\n" {
			t.Errorf("%s: ReadFS of a regular file: %q, %v", name, data, err)
		}
		for _, bad := range []string{"tasks/fifo.json", "tasks/zero.json", "tasks/to-fifo.json", "fifo-folder"} {
			within(t, name+" ReadFS "+bad, func() {
				if _, err := ReadFS(fsys, bad); !errors.Is(err, ErrNotRegular) {
					t.Errorf("%s: ReadFS(%s) = %v, want ErrNotRegular", name, bad, err)
				}
			})
		}
	}
	d := DirFS(dir)
	for _, bad := range []string{"tasks/fifo.json", "tasks/zero.json", "tasks/to-fifo.json"} {
		within(t, "DirFS "+bad, func() {
			if f, err := d.Open(bad); err == nil {
				f.Close()
				t.Errorf("DirFS.Open(%s) opened it", bad)
			}
			if _, err := fs.ReadFile(d, bad); !errors.Is(err, ErrNotRegular) {
				t.Errorf("fs.ReadFile(DirFS, %s) = %v, want ErrNotRegular", bad, err)
			}
		})
	}
	within(t, "ReadDir of a FIFO", func() {
		if _, err := ReadDir(filepath.Join(dir, "fifo-folder")); err == nil {
			t.Error("ReadDir of a FIFO succeeded")
		}
		if _, err := fs.ReadDir(d, "fifo-folder"); err == nil {
			t.Error("fs.ReadDir(DirFS) of a FIFO succeeded")
		}
	})
	if entries, err := fs.ReadDir(d, "tasks"); err != nil || len(entries) != 4 || entries[0].Name() != "fifo.json" {
		t.Errorf("fs.ReadDir(DirFS, tasks) = %v, %v", entries, err)
	}
	plain := t.TempDir()
	os.WriteFile(filepath.Join(plain, "a.json"), []byte("[]"), 0o644)
	if err := fstest.TestFS(DirFS(plain), "a.json"); err != nil {
		t.Errorf("DirFS is not a well-behaved fs.FS: %v", err)
	}
}

// A file system without Stat is read to the limit at most: its endless file
// is an error, not a read without end.
func TestReadFSBoundsAnEndlessFile(t *testing.T) {
	data, err := readFS(endless{}, "x", 1<<10)
	if !errors.Is(err, ErrTooLarge) || data != nil {
		t.Errorf("ReadFS of an endless file: %d bytes, %v; want ErrTooLarge", len(data), err)
	}
}

// endless is a file system of one file that says it is empty and never
// ends, as /dev/zero behind a file system that cannot look first.
type endless struct{}

func (endless) Open(string) (fs.File, error) { return endlessFile{}, nil }

type endlessFile struct{}

func (endlessFile) Stat() (fs.FileInfo, error) { return fstest.MapFS{"x": {}}.Stat("x") }
func (endlessFile) Read(p []byte) (int, error) { clear(p); return len(p), nil }
func (endlessFile) Close() error               { return nil }
