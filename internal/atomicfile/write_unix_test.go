//go:build unix

package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agent-oracle/oracle/internal/safeio"
)

// TestWriteFile: Write writes a regular file in place, and never
// through a symlink at the path or among its folders, nor into a FIFO.
func TestWriteFile(t *testing.T) {
	base := t.TempDir()
	outside := t.TempDir()
	target := filepath.Join(outside, "target")
	if err := os.WriteFile(target, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(target, filepath.Join(base, "link.json")))
	must(os.Symlink(outside, filepath.Join(base, "linked")))
	must(syscall.Mkfifo(filepath.Join(base, "fifo.json"), 0o644))
	must(os.WriteFile(filepath.Join(base, "old.json"), []byte("old"), 0o644))
	tests := []struct {
		path string
		want error
	}{
		{"new/deep/file.json", nil},
		{"old.json", nil},
		{"link.json", safeio.ErrSymlinkWrite},
		{"linked/file.json", safeio.ErrSymlink},
		{"fifo.json", safeio.ErrNotRegular},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			path := filepath.Join(base, tt.path)
			err := Write(base, path, []byte("new"))
			if !errors.Is(err, tt.want) {
				t.Fatalf("Write(%s) = %v, want %v", tt.path, err, tt.want)
			}
			if tt.want != nil {
				return
			}
			if got, err := os.ReadFile(path); err != nil || string(got) != "new" {
				t.Errorf("%s holds %q, %v", tt.path, got, err)
			}
		})
	}
	if got, _ := os.ReadFile(target); string(got) != "keep" {
		t.Errorf("a link's target was written: %q", got)
	}
	if _, err := os.Stat(filepath.Join(outside, "file.json")); err == nil {
		t.Error("a file was written through a linked folder")
	}
}

// TestCreateFile: Create makes a new file whole, and refuses every name
// that exists (a file, a symlink, a FIFO) without touching it or what it
// points to, and a path through a symlinked folder; no temporary file is
// left either way.
func TestCreateFile(t *testing.T) {
	base := t.TempDir()
	outside := t.TempDir()
	target := filepath.Join(outside, "target")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(target, []byte("keep"), 0o644))
	must(os.Symlink(target, filepath.Join(base, "link.go")))
	must(os.Symlink(outside, filepath.Join(base, "linked")))
	must(syscall.Mkfifo(filepath.Join(base, "fifo.go"), 0o644))
	must(os.WriteFile(filepath.Join(base, "old.go"), []byte("old"), 0o644))
	tests := []struct {
		path string
		want error
	}{
		{"new/deep/file.go", nil},
		{"old.go", fs.ErrExist},
		{"link.go", fs.ErrExist},
		{"fifo.go", fs.ErrExist},
		{"linked/file.go", safeio.ErrSymlink},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			path := filepath.Join(base, tt.path)
			err := Writer{Base: base}.Create(path, []byte("new"))
			if !errors.Is(err, tt.want) {
				t.Fatalf("Create(%s) = %v, want %v", tt.path, err, tt.want)
			}
			if tt.want != nil {
				return
			}
			if got, err := os.ReadFile(path); err != nil || string(got) != "new" {
				t.Errorf("%s holds %q, %v", tt.path, got, err)
			}
			if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o644 {
				t.Errorf("%s: %v, %v; want mode 0644", tt.path, info.Mode(), err)
			}
		})
	}
	if got, _ := os.ReadFile(filepath.Join(base, "old.go")); string(got) != "old" {
		t.Errorf("an existing file was written: %q", got)
	}
	if got, _ := os.ReadFile(target); string(got) != "keep" {
		t.Errorf("a link's target was written: %q", got)
	}
	if _, err := os.Stat(filepath.Join(outside, "file.go")); err == nil {
		t.Error("a file was written through a linked folder")
	}
	must(filepath.WalkDir(base, func(path string, d fs.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".tmp-") {
			t.Errorf("temporary file left: %s", path)
		}
		return err
	}))
}
