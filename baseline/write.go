package baseline

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agent-oracle/oracle/internal/safeio"
)

// WriteResult says what Write did with one case.
type WriteResult int

const (
	Kept    WriteResult = iota // the baseline already held these bytes
	Written                    // new or changed files were written
)

// Write freezes the artifacts of k, writing only the files whose bytes
// differ from what the store holds. Each file is replaced atomically.
func (s *Store) Write(k Key, e Entry) (WriteResult, error) {
	if err := k.Check(); err != nil {
		return Kept, err
	}
	res := Kept
	for _, name := range Files {
		data := e.File(name)
		if data == nil {
			continue
		}
		path := s.Path(k, name)
		if err := Validate(data); err != nil {
			return res, fmt.Errorf("record %s: %s %w; the rollout's artifact cannot be a baseline", k, name, err)
		}
		if err := s.checkPath(path); err != nil {
			return res, fmt.Errorf("record %s: %w", k, err)
		}
		old, err := safeio.ReadNoFollow(path)
		// a symlink, FIFO, device or socket is refused; other errors (no file,
		// a folder in the way) are the write's to report
		if errors.Is(err, safeio.ErrSymlink) || errors.Is(err, safeio.ErrNotRegular) && !isDir(path) {
			return res, fmt.Errorf("record %s: %w", k, err)
		}
		if err == nil && bytes.Equal(old, data) {
			continue
		}
		if err := s.writeAtomic(path, data); err != nil {
			return res, fmt.Errorf("record %s: %w", k, err)
		}
		res = Written
	}
	return res, nil
}

// writeAtomic writes data to path through a temporary file in the same
// folder: write, fsync, close, rename, fsync the folder. On any failure the
// temporary file is removed and path is untouched.
func (s *Store) writeAtomic(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// MkdirAll follows symlinks: look again now that the folders exist
	if err := s.checkPath(dir); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	write := s.writeFile
	if write == nil {
		write = (*os.File).Write
	}
	if _, err = write(tmp, data); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	return syncDir(dir)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, fs.ErrInvalid) {
		return err
	}
	return nil
}

// Remove deletes the baseline of k and the folders it leaves empty.
func (s *Store) Remove(k Key) error {
	if err := k.Check(); err != nil {
		return err
	}
	for _, name := range Files {
		if err := s.checkPath(s.Path(k, name)); err != nil {
			return fmt.Errorf("remove %s: %w", k, err)
		}
		if err := os.Remove(s.Path(k, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove %s: %w", k, err)
		}
	}
	for _, dir := range []string{filepath.Join(s.Root, k.Env, k.Agent), filepath.Join(s.Root, k.Env)} {
		if entries, err := os.ReadDir(dir); err == nil && len(entries) == 0 {
			os.Remove(dir)
		}
	}
	return nil
}
