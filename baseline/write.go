package baseline

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
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
	return s.write(k, e, s.writeAtomic)
}

// write compares each file of e with the store's and writes the ones that
// differ with writeFile.
func (s *Store) write(k Key, e Entry, writeFile func(path string, data []byte) error) (WriteResult, error) {
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
		if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
			continue
		}
		if err := writeFile(path, data); err != nil {
			return res, fmt.Errorf("record %s: %w", k, err)
		}
		res = Written
	}
	return res, nil
}

// Keyed is a case's key with the artifacts to freeze.
type Keyed struct {
	Key   Key
	Entry Entry
}

// WriteAll freezes many cases as Write freezes one, with jobs goroutines
// (at least 1) comparing, writing and renaming files at once. Each file is
// replaced atomically (written to a temporary file, fsynced, renamed) and
// each folder that received a file is fsynced once, after its last rename.
// It returns what happened to each case, in order, and the first error in
// that order; a case after a failed one may have been written.
func (s *Store) WriteAll(cases []Keyed, jobs int) ([]WriteResult, error) {
	results := make([]WriteResult, len(cases))
	errs := make([]error, len(cases))
	var (
		mu   sync.Mutex
		dirs = map[string]bool{}
		wg   sync.WaitGroup
		next atomic.Int64
	)
	for range min(max(jobs, 1), len(cases)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(cases) {
					return
				}
				c := cases[i]
				results[i], errs[i] = s.write(c.Key, c.Entry, func(path string, data []byte) error {
					if err := s.writeSynced(path, data); err != nil {
						return err
					}
					mu.Lock()
					dirs[filepath.Dir(path)] = true
					mu.Unlock()
					return nil
				})
			}
		}()
	}
	wg.Wait()
	for _, dir := range slices.Sorted(maps.Keys(dirs)) {
		if err := syncDir(dir); err != nil {
			return results, fmt.Errorf("record: %w", err)
		}
	}
	for _, err := range errs {
		if err != nil {
			return results, err
		}
	}
	return results, nil
}

// writeAtomic writes data to path through a temporary file in the same
// folder: write, fsync, close, rename, fsync the folder. On any failure the
// temporary file is removed and path is untouched.
func (s *Store) writeAtomic(path string, data []byte) error {
	if err := s.writeSynced(path, data); err != nil {
		return err
	}
	return syncDir(filepath.Dir(path))
}

// writeSynced is writeAtomic without the folder's fsync, which the caller
// owes once it has renamed its last file into the folder.
func (s *Store) writeSynced(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
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
	return os.Rename(tmp.Name(), path)
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
