package safeio

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFile writes data to path, a file inside the folder base, without
// following a link: no folder between base and path may be a symlink (base
// itself may be reached through one), a symlink, FIFO or other non-regular
// file at path is an error naming it, and the bytes go to a new temporary
// file in path's folder, synced and renamed over path (a rename replaces a
// name, it never writes through one). Missing folders are made. On failure
// path is as it was.
func WriteFile(base, path string, data []byte) error {
	if err := CheckChain(base, filepath.Dir(path)); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	// MkdirAll follows symlinks: look again now that the folders exist
	if err := CheckChain(base, filepath.Dir(path)); err != nil {
		return err
	}
	switch info, err := os.Lstat(path); {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	case info.Mode()&fs.ModeSymlink != 0:
		return &fs.PathError{Op: "write", Path: path, Err: ErrSymlinkWrite}
	case !info.Mode().IsRegular():
		return &fs.PathError{Op: "write", Path: path, Err: fmt.Errorf("%w (it is %s); remove it", ErrNotRegular, kind(info.Mode()))}
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// ErrSymlinkWrite is WriteFile's error for a symlink where it would write.
var ErrSymlinkWrite = errors.New("is a symlink; oracle writes through no link: remove it")
