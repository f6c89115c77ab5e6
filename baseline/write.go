package baseline

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/agent-oracle/oracle/internal/atomicfile"
	"github.com/agent-oracle/oracle/internal/safeio"
)

// WriteResult says what Write did with one case.
type WriteResult int

const (
	Unchanged WriteResult = iota // the baseline already held these bytes
	Written                      // new or changed files were written
)

// WriteError is the failure to freeze the artifacts of the case Key; Err
// says why. Replaced says that some of the case's files were already
// replaced when it failed (Batch.Commit renames a case's files one by one),
// so its baseline holds some old files and some new.
type WriteError struct {
	Key      Key
	Err      error
	Replaced bool
}

func (e *WriteError) Error() string { return "record " + e.Key.String() + ": " + e.Reason() }

// Reason is the error without the case it is of, for a report that names
// the case beside it.
func (e *WriteError) Reason() string {
	if e.Replaced {
		return e.Err.Error() + " (some of its files were replaced before the failure)"
	}
	return e.Err.Error()
}

func (e *WriteError) Unwrap() error { return e.Err }

// Write freezes the artifacts of k, writing only the files whose bytes
// differ from what the store holds. Each file is replaced atomically. The
// files of the other kind of baseline than e's (see Entry) are removed
// after e's are written.
func (s *Store) Write(k Key, e Entry) (WriteResult, error) {
	return s.write(k, e, s.checkPath, s.writeAtomic, s.removeFile)
}

// write compares each file of e with the store's and writes the ones that
// differ with writeFile, after checking each path with checkPath; then it
// removes with removeFile those of the other kind that exist.
func (s *Store) write(k Key, e Entry, checkPath func(path string) error, writeFile func(path string, data []byte) error, removeFile func(path string) error) (WriteResult, error) {
	if err := k.Check(); err != nil {
		return Unchanged, err
	}
	// the other kind's files are looked at before anything is written
	others, err := s.otherKindFiles(k, e, checkPath)
	if err != nil {
		return Unchanged, err
	}
	res, err := s.writeFiles(k, e, checkPath, writeFile)
	if err != nil {
		return res, err
	}
	for _, path := range others {
		if err := removeFile(path); err != nil {
			return res, &WriteError{Key: k, Err: err}
		}
		res = Written
	}
	return res, nil
}

// otherKindFiles lists the files of k of the other kind than e's that
// exist, after checking each path: a symlink or anything but a regular
// file there is an error.
func (s *Store) otherKindFiles(k Key, e Entry, checkPath func(path string) error) ([]string, error) {
	var out []string
	for _, name := range e.otherKind() {
		path := s.Path(k, name)
		if err := checkPath(path); err != nil {
			return nil, &WriteError{Key: k, Err: err}
		}
		switch info, err := os.Lstat(path); {
		case err != nil:
			continue // nothing to remove; what stands in the way, the write finds
		case !info.Mode().IsRegular():
			return nil, &WriteError{Key: k, Err: fmt.Errorf("baseline %s is not a regular file; remove it", path)}
		}
		out = append(out, path)
	}
	return out, nil
}

// removeOtherKind removes the files of k of the other kind than e's.
func (s *Store) removeOtherKind(k Key, e Entry) error {
	others, err := s.otherKindFiles(k, e, s.checkPath)
	for _, path := range others {
		if err == nil {
			err = s.removeFile(path)
		}
	}
	return err
}

// removeFile removes a file of the store and fsyncs its folder.
func (s *Store) removeFile(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return atomicfile.SyncDir(filepath.Dir(path))
}

// writeFiles is write's writing of e's own files.
func (s *Store) writeFiles(k Key, e Entry, checkPath func(path string) error, writeFile func(path string, data []byte) error) (WriteResult, error) {
	res := Unchanged
	for _, name := range storedFiles {
		data := e.File(name)
		if data == nil {
			continue
		}
		path := s.Path(k, name)
		if err := validate(data); err != nil {
			return res, &WriteError{Key: k, Err: fmt.Errorf("%s %w; the rollout's artifact cannot be a baseline", name, err)}
		}
		if err := checkPath(path); err != nil {
			return res, &WriteError{Key: k, Err: err}
		}
		old, err := safeio.ReadNoFollow(path)
		// a symlink, FIFO, device or socket is refused; other errors (no file,
		// a folder in the way) are the write's to report
		if errors.Is(err, safeio.ErrSymlink) || errors.Is(err, safeio.ErrNotRegular) && !isDir(path) {
			return res, &WriteError{Key: k, Err: err}
		}
		if err == nil && bytes.Equal(old, data) {
			continue
		}
		if err := writeFile(path, data); err != nil {
			return res, &WriteError{Key: k, Err: err}
		}
		res = Written
	}
	return res, nil
}

// stagedFile is a file written to tmp, waiting to be renamed to path, or
// with tmp empty a file of the other kind of baseline, waiting to be
// removed.
type stagedFile struct{ tmp, path string }

func discard(files []stagedFile) {
	for _, f := range files {
		if f.tmp != "" {
			os.Remove(f.tmp)
		}
	}
}

// stage writes the files of e that differ from the store's to temporary
// files next to them, fsynced unless noSync, checking and making each
// folder once with dirs.
func (s *Store) stage(k Key, e Entry, dirs *folders, noSync bool) (staged []stagedFile, err error) {
	w := s.writer()
	w.NoSync = noSync
	_, err = s.write(k, e, dirs.checkPath, func(path string, data []byte) error {
		if err := dirs.make(filepath.Dir(path)); err != nil {
			return refused(err)
		}
		tmp, err := w.WriteTempIn(path, data)
		if err != nil {
			return refused(err)
		}
		staged = append(staged, stagedFile{tmp, path})
		return nil
	}, func(path string) error {
		staged = append(staged, stagedFile{path: path}) // removed once the others are in place
		return nil
	})
	if err != nil {
		discard(staged)
		return nil, err
	}
	return staged, nil
}

// folders remembers, for one Batch, the folders of the store it has
// checked for symlinks and made, so that each is looked at once, not once
// for each file written to it. The store is locked meanwhile.
type folders struct {
	store *Store
	mu    sync.Mutex
	seen  map[string]*folder
	made  []string // the folders make made
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
	if err := d.checkFolder(path); err != nil {
		return err
	}
	if err := safeio.CheckChain(dir, path); err != nil {
		return fmt.Errorf("baseline: %w", err)
	}
	return nil
}

// checkFolder is checkPath without the file itself, for a reader that
// opens it without following a symlink.
func (d *folders) checkFolder(path string) error {
	dir := filepath.Dir(path)
	f := d.get(dir)
	f.checkOnce.Do(func() { f.checkErr = d.store.checkPath(dir) })
	return f.checkErr
}

// make makes the folder dir once, and remembers the folders it made.
func (d *folders) make(dir string) error {
	f := d.get(dir)
	f.makeOnce.Do(func() {
		var missing []string
		for p := dir; filepath.Dir(p) != p; p = filepath.Dir(p) {
			if _, err := os.Lstat(p); err == nil {
				break
			}
			missing = append(missing, p)
		}
		f.makeErr = d.store.writer().MakeDir(dir)
		d.mu.Lock()
		d.made = append(d.made, missing...)
		d.mu.Unlock()
	})
	return f.makeErr
}

// removeMade removes the folders make made, the deepest first, if they are
// empty.
func (d *folders) removeMade() {
	d.mu.Lock()
	defer d.mu.Unlock()
	slices.SortFunc(d.made, func(a, b string) int { return len(b) - len(a) })
	for _, p := range d.made {
		os.Remove(p)
	}
	d.made = nil
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
	for _, name := range storedFiles {
		if err := s.checkPath(s.Path(k, name)); err != nil {
			return fmt.Errorf("remove %s: %w", k, err)
		}
		if err := os.Remove(s.Path(k, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove %s: %w", k, err)
		}
	}
	for _, dir := range []string{filepath.Join(s.Root, k.Env, k.Agent), filepath.Join(s.Root, k.Env)} {
		if entries, err := safeio.ReadDir(dir); err == nil && len(entries) == 0 {
			os.Remove(dir)
		}
	}
	return nil
}
