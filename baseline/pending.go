package baseline

import (
	"errors"
	"fmt"
	"github.com/agent-oracle/oracle/internal/atomicfile"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agent-oracle/oracle/internal/safeio"
)

// PendingDir holds the fresh artifacts of the cases a check found changed or
// missing, waiting to be accepted or rejected, relative to the project root.
// It is never committed.
const PendingDir = ".silo/pending"

// ObsoleteSuffix marks a pending removal: <TASK>.obsolete says that the
// case's baseline has no case any more, and accepting it removes the
// baseline.
const ObsoleteSuffix = ".obsolete"

// Pending is a folder of artifacts waiting to be accepted into a store, in
// the store's layout (<env>/<agent>/<TASK>.result.json, …): the project's
// .silo/pending, or the fresh/ folder of a check's --report-dir.
type Pending struct {
	store *Store
	// report is set for the fresh/ folder of a report folder, which its
	// errors name as such (never as a baseline or .silo)
	report bool
}

// OpenPending returns the pending folder of the project at projectDir.
func OpenPending(projectDir string) *Pending {
	return NewPending(filepath.Join(projectDir, PendingDir))
}

// NewPending returns the pending folder at root.
func NewPending(root string) *Pending { return &Pending{store: &Store{Root: root}} }

// NewReportPending returns the pending folder of a report folder (its
// fresh/ folder, root), which is outside input: its errors speak of the
// report folder and name its fix (download it again), never of .silo.
func NewReportPending(root string) *Pending {
	return &Pending{store: &Store{Root: root, source: reportSource}, report: true}
}

// wrap is err of reading the pending folder, worded for its kind.
func (p *Pending) wrap(err error) error {
	if err == nil || !p.report {
		return err
	}
	var pe *fs.PathError
	if errors.As(err, &pe) && errors.Is(err, safeio.ErrSymlink) {
		return fmt.Errorf("report folder: %s is a symlink; oracle follows no link in a report folder: download the folder again, or remove the link", pe.Path)
	}
	return err
}

// Root is the folder.
func (p *Pending) Root() string { return p.store.Root }

// Write replaces the pending artifacts of k with e, atomically file by file,
// and drops a pending removal of k.
func (p *Pending) Write(k Key, e Entry) error {
	if err := p.Remove(k); err != nil {
		return err
	}
	if _, err := p.store.Write(k, e); err != nil {
		return fmt.Errorf("pending %s: %w", k, err)
	}
	if !p.report {
		atomicfile.Writer{Base: p.store.base()}.IgnoreInGit(p.store.Root)
	}
	return nil
}

// MarkObsolete records that k's baseline has no case any more.
func (p *Pending) MarkObsolete(k Key) error {
	if err := p.Remove(k); err != nil {
		return err
	}
	if err := p.store.writeAtomic(p.obsoletePath(k), nil); err != nil {
		return fmt.Errorf("pending %s: %w", k, err)
	}
	return nil
}

func (p *Pending) obsoletePath(k Key) string {
	return filepath.Join(p.store.Root, k.Env, k.Agent, k.Task+ObsoleteSuffix)
}

// Read returns the pending artifacts of k, or obsolete true for a pending
// removal. It returns ErrNotFound when nothing is pending for k.
func (p *Pending) Read(k Key) (e Entry, obsolete bool, err error) {
	if err := k.Check(); err != nil {
		return Entry{}, false, err
	}
	obsolete, err = p.readObsolete(k)
	if err != nil || obsolete {
		return Entry{}, obsolete, p.wrap(err)
	}
	e, err = p.store.Read(k)
	if err != nil && !errors.Is(err, ErrNotFound) {
		if p.report {
			return Entry{}, false, p.wrap(err)
		}
		return Entry{}, false, fmt.Errorf("pending: %w", err)
	}
	return e, false, err
}

// readObsolete reports whether a pending removal of k exists: a regular
// file, reached without a symlink and read through safeio (never a FIFO
// waited on).
func (p *Pending) readObsolete(k Key) (bool, error) {
	path := p.obsoletePath(k)
	if err := p.store.checkPath(path); err != nil {
		return false, fmt.Errorf("pending %s: %w", k, err)
	}
	_, err := safeio.ReadNoFollow(path)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	}
	return false, fmt.Errorf("pending %s: %w", k, err)
}

// Remove deletes what is pending for k, if anything. A symlink on the way
// (or the files themselves) is an error: nothing is removed through one.
func (p *Pending) Remove(k Key) error {
	if err := p.store.checkPath(p.obsoletePath(k)); err != nil {
		return fmt.Errorf("pending %s: %w", k, err)
	}
	if err := p.store.Remove(k); err != nil {
		return fmt.Errorf("pending: %w", err)
	}
	if err := os.Remove(p.obsoletePath(k)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("pending %s: %w", k, err)
	}
	for _, dir := range []string{filepath.Join(p.store.Root, k.Env, k.Agent), filepath.Join(p.store.Root, k.Env)} {
		if entries, err := safeio.ReadDir(dir); err == nil && len(entries) == 0 {
			os.Remove(dir)
		}
	}
	return nil
}

// List returns the keys with something pending, sorted. A symlink in the
// folder is an error: nothing is read through it.
func (p *Pending) List() ([]Key, error) {
	keys, err := p.store.listKeys("pending artifacts", func(name string) (string, bool) {
		if strings.HasPrefix(name, ".") {
			return "", false
		}
		if task, ok := taskOf(name); ok {
			return task, true
		}
		return strings.CutSuffix(name, ObsoleteSuffix)
	})
	return keys, p.wrap(err)
}

// Accepted says what accepting one case did to the store.
type Accepted struct {
	Key Key `json:"-"`
	// Case is the case's name, env/agent/task.
	Case string `json:"case"`
	// Wrote lists the artifact files written.
	Wrote []string `json:"wrote,omitempty"`
	// Obsolete is set when the baseline was removed because its case is
	// gone.
	Obsolete bool `json:"obsolete,omitempty"`
}

// Accept makes the store hold what p holds for each of keys, under the
// store's lock, through its atomic writer: the pending artifacts replace
// the baseline's files (a file not pending is kept), and a pending removal
// removes the baseline. Every pending entry is read, and every file it
// may write looked at (no symlink among its folders, nothing but a regular
// file in its place), before anything is written: such trouble is an
// error while the store is as it was. Past that it stops at the first
// error and returns what it did until then.
func (s *Store) Accept(p *Pending, keys []Key) ([]Accepted, error) {
	return s.AcceptExpecting(p, keys, nil)
}

// AcceptExpecting is Accept for artifacts that were compared with known
// baselines: want gives the hash (HashEntry) each key's baseline had then.
// Under the store's lock, before anything is written, every key whose
// baseline's hash is now another is looked for: when there is any, nothing
// is written and the error is a *Moved naming them all.
func (s *Store) AcceptExpecting(p *Pending, keys []Key, want map[Key]string) ([]Accepted, error) {
	unlock, err := s.Lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	if moved, err := s.moved(p, keys, want); err != nil {
		return nil, err
	} else if len(moved) > 0 {
		return nil, &Moved{Keys: moved}
	}
	type pending struct {
		e        Entry
		obsolete bool
	}
	all := make([]pending, len(keys))
	for i, k := range keys {
		e, obsolete, err := p.Read(k)
		if err != nil {
			return nil, fmt.Errorf("accept %s: %w", k, err)
		}
		for _, name := range storedFiles {
			path := s.Path(k, name)
			if err := s.checkPath(path); err != nil {
				return nil, fmt.Errorf("accept %s: %w", k, err)
			}
			if err := safeio.CheckWriteTarget(path); err != nil {
				return nil, fmt.Errorf("accept %s: %w", k, refused(err))
			}
		}
		if _, err := s.otherKindFiles(k, e, s.checkPath); err != nil {
			return nil, fmt.Errorf("accept %s: %w", k, err)
		}
		all[i] = pending{e, obsolete}
	}
	var out []Accepted
	for i, k := range keys {
		e, obsolete := all[i].e, all[i].obsolete
		a := Accepted{Key: k, Case: k.String(), Obsolete: obsolete}
		for _, name := range Files {
			data := e.File(name)
			if data == nil {
				// not pending (check compared only some artifacts): the
				// baseline's file stays
				continue
			}
			path := s.Path(k, name)
			old, readErr := s.readArtifact(path, data, s.checkPath)
			if readErr == nil && string(old) == string(data) {
				continue
			}
			if err := s.writeAtomic(path, data); err != nil {
				return out, fmt.Errorf("accept %s: %w", k, err)
			}
			a.Wrote = append(a.Wrote, name)
		}
		if len(a.Wrote) > 0 {
			// a case is one kind or the other: a distribution's file goes
			if err := s.removeOtherKind(k, e); err != nil {
				return out, fmt.Errorf("accept %s: %w", k, err)
			}
		}
		if obsolete {
			if err := s.Remove(k); err != nil {
				return out, fmt.Errorf("accept %s: %w", k, err)
			}
		}
		out = append(out, a)
	}
	return out, nil
}
