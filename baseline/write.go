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

	"github.com/agent-oracle/oracle/internal/atomicfile"
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
	return s.write(k, e, s.checkPath, s.writeAtomic)
}

// write compares each file of e with the store's and writes the ones that
// differ with writeFile, after checking each path with checkPath.
func (s *Store) write(k Key, e Entry, checkPath func(path string) error, writeFile func(path string, data []byte) error) (WriteResult, error) {
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
		if err := checkPath(path); err != nil {
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

// WriteAll freezes many cases as Write freezes them one after another, in
// three steps: jobs goroutines (at least 1) compare each file with the
// store's and write the ones that differ to fsynced temporary files; then,
// in the cases' order, the temporary files are renamed into place; last,
// each folder that received a file is fsynced once. A file is so replaced
// atomically, as Write replaces it, with one folder fsync per folder
// instead of one per file.
//
// It returns what happened to each case up to failed, the index of the
// first case that could not be written (its error is err; some of its
// files may have been renamed, and then its result is Written), or -1. The
// cases after failed are not written. err with failed -1 means every file
// is in place but a folder could not be fsynced.
func (s *Store) WriteAll(cases []Keyed, jobs int) (results []WriteResult, failed int, err error) {
	results = make([]WriteResult, len(cases))
	staged := make([][]stagedFile, len(cases))
	errs := make([]error, len(cases))
	var (
		wg      sync.WaitGroup
		next    atomic.Int64
		stopped atomic.Int64 // the lowest index that failed, or len(cases)
	)
	stopped.Store(int64(len(cases)))
	dirs := &folders{store: s}
	for range min(max(jobs, 1), len(cases)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(cases) || int64(i) > stopped.Load() {
					return // the cases after a failure are not written
				}
				staged[i], errs[i] = s.stage(cases[i].Key, cases[i].Entry, dirs)
				if errs[i] != nil {
					for {
						cur := stopped.Load()
						if int64(i) >= cur || stopped.CompareAndSwap(cur, int64(i)) {
							break
						}
					}
				}
			}
		}()
	}
	wg.Wait()

	failed = -1
	renamed := map[string]bool{}
	for i := range cases {
		if failed >= 0 {
			discard(staged[i])
			continue
		}
		if errs[i] != nil {
			failed, err = i, errs[i]
			continue
		}
		for j, f := range staged[i] {
			if rerr := os.Rename(f.tmp, f.path); rerr != nil {
				discard(staged[i][j:])
				failed, err = i, fmt.Errorf("record %s: %w", cases[i].Key, rerr)
				break
			}
			results[i] = Written
			renamed[filepath.Dir(f.path)] = true
		}
	}
	for _, dir := range slices.Sorted(maps.Keys(renamed)) {
		if serr := atomicfile.SyncDir(dir); serr != nil && err == nil {
			err = fmt.Errorf("record: %w", serr)
		}
	}
	return results, failed, err
}

// stagedFile is a file written to tmp, fsynced, waiting to be renamed to
// path.
type stagedFile struct{ tmp, path string }

func discard(files []stagedFile) {
	for _, f := range files {
		os.Remove(f.tmp)
	}
}

// stage writes the files of e that differ from the store's to fsynced
// temporary files next to them, checking and making each folder once with
// dirs.
func (s *Store) stage(k Key, e Entry, dirs *folders) (staged []stagedFile, err error) {
	_, err = s.write(k, e, dirs.checkPath, func(path string, data []byte) error {
		if err := dirs.make(filepath.Dir(path)); err != nil {
			return refused(err)
		}
		tmp, err := s.writer().WriteTempIn(path, data)
		if err != nil {
			return refused(err)
		}
		staged = append(staged, stagedFile{tmp, path})
		return nil
	})
	if err != nil {
		discard(staged)
		return nil, err
	}
	return staged, nil
}

// folders remembers, for one WriteAll, the folders of the store it has
// checked for symlinks and made, so that each is looked at once, not once
// for each file written to it. The store is locked meanwhile.
type folders struct {
	store *Store
	mu    sync.Mutex
	seen  map[string]*folder
}

type folder struct {
	checkOnce, makeOnce sync.Once
	checkErr, makeErr   error
}

func (d *folders) get(dir string) *folder {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.seen == nil {
		d.seen = map[string]*folder{}
	}
	f := d.seen[dir]
	if f == nil {
		f = &folder{}
		d.seen[dir] = f
	}
	return f
}

// checkPath is Store.checkPath with the folder's chain checked once: the
// file itself is looked at each time.
func (d *folders) checkPath(path string) error {
	dir := filepath.Dir(path)
	f := d.get(dir)
	f.checkOnce.Do(func() { f.checkErr = d.store.checkPath(dir) })
	if f.checkErr != nil {
		return f.checkErr
	}
	if err := safeio.CheckChain(dir, path); err != nil {
		return fmt.Errorf("baseline: %w", err)
	}
	return nil
}

// make makes the folder dir once.
func (d *folders) make(dir string) error {
	f := d.get(dir)
	f.makeOnce.Do(func() { f.makeErr = d.store.writer().MakeDir(dir) })
	return f.makeErr
}

// writeAtomic writes data to path through the one atomic writer: no
// symlink followed below the store's base, temporary file, fsync, rename,
// folder fsync.
func (s *Store) writeAtomic(path string, data []byte) error {
	return refused(s.writer().Write(path, data))
}

// refused says that a symlink refused by the writer is in the baseline
// store; other errors are the file system's own.
func refused(err error) error {
	if errors.Is(err, safeio.ErrSymlink) {
		return fmt.Errorf("baseline: %w", err)
	}
	return err
}

func (s *Store) writer() atomicfile.Writer {
	return atomicfile.Writer{Base: s.base(), WriteHook: s.writeFile}
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
