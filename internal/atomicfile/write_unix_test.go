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

// hostileBase makes a base folder holding link<ext> (a symlink to target,
// a file outside holding "keep"), linked (a symlink to the outside folder),
// fifo<ext> (a FIFO) and old<ext> (a file holding "old").
func hostileBase(t *testing.T, ext string) (base, outside, target string) {
	t.Helper()
	base, outside = t.TempDir(), t.TempDir()
	target = filepath.Join(outside, "target")
	for _, err := range []error{
		os.WriteFile(target, []byte("keep"), 0o644),
		os.Symlink(target, filepath.Join(base, "link"+ext)),
		os.Symlink(outside, filepath.Join(base, "linked")),
		syscall.Mkfifo(filepath.Join(base, "fifo"+ext), 0o644),
		os.WriteFile(filepath.Join(base, "old"+ext), []byte("old"), 0o644),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	return base, outside, target
}

// TestWriteFile: Write writes a regular file in place, and never
// through a symlink at the path or among its folders, nor into a FIFO.
func TestWriteFile(t *testing.T) {
	base, outside, target := hostileBase(t, ".json")
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
	base, outside, target := hostileBase(t, ".go")
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
	err := filepath.WalkDir(base, func(path string, d fs.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".tmp-") {
			t.Errorf("temporary file left: %s", path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
