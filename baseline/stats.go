package baseline

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"syscall"

	"github.com/agent-oracle/oracle/internal/artifact"
	"github.com/agent-oracle/oracle/internal/safeio"
)

// StatsFile is the file of a distribution case's baseline,
// <TASK>.stats.json: the counts of the outcomes of its repeated runs, which
// package oracle/stats reads and writes. A case's baseline is either its
// files of Files or this one.
const StatsFile = artifact.Stats

// storedFiles are every file a baseline may hold: Files, then StatsFile.
var storedFiles = append(slices.Clone(Files), StatsFile)

// Form is which kind of baseline a case has.
type Form int

const (
	NoBaseline   Form = iota // no file of the case exists
	Bytes                    // its files of Files: compared byte for byte
	Distribution             // its StatsFile: compared as a distribution
	BothKinds                // files of both kinds: the store is inconsistent
)

// ReadStats returns the bytes of k's StatsFile, or ErrNotFound when it has
// none, as Read reads a byte-for-byte baseline: no symlink on the way, a
// regular file, within safeio's limits. What the bytes say is for package
// oracle/stats to read.
func (s *Store) ReadStats(k Key) ([]byte, error) { return s.readStats(k, s.checkPath) }

// ReadStats is Store.ReadStats.
func (r *Reader) ReadStats(k Key) ([]byte, error) {
	return r.dirs.store.readStats(k, r.dirs.checkFolder)
}

func (s *Store) readStats(k Key, checkPath func(path string) error) ([]byte, error) {
	if err := k.Check(); err != nil {
		return nil, err
	}
	path := s.Path(k, StatsFile)
	data, err := s.readArtifact(path, nil, checkPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNotFound
	}
	return data, err
}

// KindOf says which kind of baseline k has, looking at which of its files
// exist (without reading them). A symlink or another file that is not a
// regular file where a baseline file would be is an error, as Read's.
func (s *Store) KindOf(k Key) (Form, error) { return s.kindOf(k, s.checkPath) }

// KindOf is Store.KindOf.
func (r *Reader) KindOf(k Key) (Form, error) { return r.dirs.store.kindOf(k, r.dirs.checkFolder) }

func (s *Store) kindOf(k Key, checkPath func(path string) error) (Form, error) {
	if err := k.Check(); err != nil {
		return NoBaseline, err
	}
	bytes, stats := false, false
	for _, name := range storedFiles {
		path := s.Path(k, name)
		if err := checkPath(path); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return NoBaseline, err
		}
		info, err := os.Lstat(path)
		switch {
		case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
			continue // a file where a folder should be: the reader says so
		case err != nil:
			return NoBaseline, fmt.Errorf("baseline: %w", err)
		case !info.Mode().IsRegular():
			if err := safeio.CheckEntry(path, info.Mode().Type()); err != nil {
				return NoBaseline, fmt.Errorf("baseline: %w", err)
			}
			return NoBaseline, fmt.Errorf("baseline %s is a folder, not a file; remove it and run %s record", path, s.program())
		}
		if name == StatsFile {
			stats = true
		} else {
			bytes = true
		}
	}
	switch {
	case bytes && stats:
		return BothKinds, nil
	case stats:
		return Distribution, nil
	case bytes:
		return Bytes, nil
	}
	return NoBaseline, nil
}

// otherKind lists the files of the kind e is not: the byte-for-byte files
// for a distribution entry, StatsFile for a byte-for-byte one, none for an
// empty entry. Writing e removes them.
func (e Entry) otherKind() []string {
	switch {
	case e.Stats != nil:
		return Files
	case e.Result != nil || e.StateDiff != nil || e.Calls != nil:
		return []string{StatsFile}
	}
	return nil
}
