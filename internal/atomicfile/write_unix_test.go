//go:build unix

package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
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
