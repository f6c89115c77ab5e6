//go:build unix

package safeio

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	regular := filepath.Join(dir, "a.json")
	if err := os.WriteFile(regular, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(regular, link); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero.json")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		path     string
		noFollow bool
		want     error // nil: reads {}
	}{
		{"regular", regular, false, nil},
		{"regular, no follow", regular, true, nil},
		{"symlink to a regular file", link, false, nil},
		{"symlink, no follow", link, true, ErrSymlink},
		{"device", "/dev/zero", false, ErrNotRegular},
		{"symlink to a device", zero, false, ErrNotRegular},
		{"symlink to a device, no follow", zero, true, ErrSymlink},
		{"FIFO", fifo, false, ErrNotRegular},
		{"FIFO, no follow", fifo, true, ErrNotRegular},
		{"folder", dir, false, ErrNotRegular},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := os.Stat(tt.path); err != nil {
				t.Skipf("%s: %v", tt.path, err)
			}
			data, err := read(tt.path, tt.noFollow)
			if tt.want == nil {
				if err != nil || string(data) != "{}\n" {
					t.Errorf("read = %q, %v", data, err)
				}
				return
			}
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.path) {
				t.Errorf("read = %v, want %v naming %s", err, tt.want, tt.path)
			}
		})
	}
}

func TestReadStopsAtTheLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(path, []byte(strings.Repeat(" ", 11)), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := readAll(f, path, 10); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), path) {
		t.Errorf("readAll over the limit = %v, want ErrTooLarge naming the file", err)
	}
}

func TestCheckChain(t *testing.T) {
	base := t.TempDir()
	if err := os.MkdirAll(filepath.Join(base, "real", "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(base, "real"), filepath.Join(base, "link")); err != nil {
		t.Fatal(err)
	}
	if err := CheckChain(base, filepath.Join(base, "real", "x", "missing.json")); err != nil {
		t.Errorf("no symlink: %v", err)
	}
	err := CheckChain(base, filepath.Join(base, "link", "x", "f.json"))
	if !errors.Is(err, ErrSymlink) || !strings.Contains(err.Error(), filepath.Join(base, "link")) {
		t.Errorf("through a symlink: %v", err)
	}
	if err := CheckTree(base); !errors.Is(err, ErrSymlink) {
		t.Errorf("CheckTree = %v, want ErrSymlink", err)
	}
}
