package baseline

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agent-oracle/oracle/internal/artifact"
	"github.com/agent-oracle/oracle/internal/safeio"
)

// reportSource is Store.source for a report folder's fresh artifacts.
const reportSource = "report folder"

// Dir is the store's folder, relative to the project root.
const Dir = ".silo/baselines"

// Store is a baseline store rooted at a folder (usually <project>/.silo/baselines).
type Store struct {
	Root string
	// Program is the program's name in the fixes the store's errors
	// suggest ("run oracle record"); empty means oracle.
	Program string
	// source is what the store's folder is, for the words of its
	// errors: the baselines (""), or a report folder's fresh artifacts
	source string
	// fs hooks, replaced in tests to inject faults
	writeFile func(f *os.File, data []byte) (int, error)
}

// Open returns the store of the project at dir.
func Open(projectDir string) *Store {
	return &Store{Root: filepath.Join(projectDir, Dir)}
}

// Entry is a baseline's artifacts, one field for each of Files. A nil slice
// means the file is absent.
//
// A case is one kind or the other: byte for byte (the files of Files) or a
// distribution (Stats, <TASK>.stats.json, the counts of repeated runs'
// outcomes). Writing an entry of one kind removes the other kind's files.
type Entry struct {
	Result    []byte // result.json
	StateDiff []byte // state-diff.json
	Calls     []byte // calls.json
	Stats     []byte // stats.json: a distribution case's baseline
}

// File returns the artifact called name (one of Files), or nil.
func (e Entry) File(name string) []byte {
	if p := e.field(name); p != nil {
		return *p
	}
	return nil
}

// Set sets the artifact called name (one of Files); other names are ignored.
func (e *Entry) Set(name string, data []byte) {
	if p := e.field(name); p != nil {
		*p = data
	}
}

func (e *Entry) field(name string) *[]byte {
	switch name {
	case artifact.Result:
		return &e.Result
	case artifact.StateDiff:
		return &e.StateDiff
	case artifact.Calls:
		return &e.Calls
	case StatsFile:
		return &e.Stats
	}
	return nil
}

// Pick returns the entry holding the files of m (artifacts by file name, as
// runner.Artifacts.Files gives them) that names lists; names are file names
// of Files.
func Pick(m map[string][]byte, names []string) Entry {
	var e Entry
	for _, n := range names {
		e.Set(n, m[n])
	}
	return e
}

// Path returns the file of key's artifact name (one of Files).
func (s *Store) Path(k Key, name string) string {
	return filepath.Join(s.Root, k.Env, k.Agent, k.Task+"."+name)
}

// ErrNotFound is returned by Read when a case has no baseline.
var ErrNotFound = errors.New("no baseline")

// Read returns the baseline of k. It returns ErrNotFound when none of its
// files exists, and an error naming the file and the fix when a file cannot be
// used: a folder, unreadable, empty or truncated, not JSON, with a byte-order
// mark or CRLF line ends. It reads the byte-for-byte files (Files); a
// distribution's is ReadStats's.
func (s *Store) Read(k Key) (Entry, error) { return s.ReadLike(k, Entry{}) }

// ReadLike is Read for a caller that holds fresh artifacts of k made by the
// runner: a file whose bytes are those of like's is not validated again.
func (s *Store) ReadLike(k Key, like Entry) (Entry, error) {
	return s.readLike(k, like, s.checkPath)
}

// Reader reads many baselines of a store that is not being written, as
// ReadLike reads them, looking for symlinks once in each folder's chain
// rather than once for each file (each file is opened without following a
// symlink, which is refused with the same error): for a check, which reads
// every baseline once.
type Reader struct{ dirs folders }

// Reader returns a Reader of the store.
func (s *Store) Reader() *Reader { return &Reader{folders{store: s}} }

// ReadLike is Store.ReadLike.
func (r *Reader) ReadLike(k Key, like Entry) (Entry, error) {
	return r.dirs.store.readLike(k, like, r.dirs.checkFolder)
}

// readLike is ReadLike with checkPath looking for symlinks on the way to
// each file.
func (s *Store) readLike(k Key, like Entry, checkPath func(path string) error) (Entry, error) {
	if err := k.Check(); err != nil {
		return Entry{}, err
	}
	var e Entry
	found := false
	for _, name := range Files {
		path := s.Path(k, name)
		data, err := s.readArtifact(path, like.File(name), checkPath)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return Entry{}, err
		}
		found = true
		e.Set(name, data)
	}
	if !found {
		return Entry{}, ErrNotFound
	}
	return e, nil
}

// readArtifact reads one artifact file and checks that it is one: no
// symlink on the way from the project, a regular file (never waited on),
// within the limits. The checks of its content are skipped when it holds
// the bytes of same, which are known to be good.
func (s *Store) readArtifact(path string, same []byte, checkPath func(path string) error) ([]byte, error) {
	if err := checkPath(path); err != nil {
		return nil, err
	}
	data, err := safeio.ReadNoFollow(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		if errors.Is(err, safeio.ErrNotRegular) && isDir(path) {
			return nil, fmt.Errorf("baseline %s is a folder, not a file; remove it and run %s record", path, s.program())
		}
		return nil, fmt.Errorf("baseline: %w", err)
	}
	if same != nil && bytes.Equal(data, same) {
		return data, nil
	}
	if err := validate(data); err != nil {
		if s.source == reportSource {
			return nil, fmt.Errorf("report folder: %s %v; download the report folder again, or run %s check --report-dir again", path, err, s.program())
		}
		return nil, fmt.Errorf("baseline %s %v; %s", path, err, fixFor(err, s.program()))
	}
	return data, nil
}

func isDir(path string) bool {
	info, err := os.Lstat(path)
	return err == nil && info.IsDir()
}

// checkPath reports a symlink among path's folders from the project's
// .silo down (the project folder itself may be reached through one).
func (s *Store) checkPath(path string) error {
	if err := safeio.CheckChain(s.base(), path); err != nil {
		return fmt.Errorf("baseline: %w", err)
	}
	return nil
}

// base is the folder whose contents are guarded: the project folder when
// the store is at one of its usual places (.silo/baselines, .silo/pending),
// else the store's own parent.
func (s *Store) base() string {
	for _, d := range []string{Dir, PendingDir} {
		if p, ok := strings.CutSuffix(filepath.ToSlash(s.Root), "/"+d); ok {
			return filepath.FromSlash(p)
		}
	}
	return filepath.Dir(s.Root)
}

// Problems with artifact bytes, which a write that refuses them wraps.
var (
	ErrEmpty    = errors.New("is empty")
	ErrBOM      = errors.New("starts with a byte-order mark")
	ErrCRLF     = errors.New("has CRLF line ends")
	ErrNotJSON  = errors.New("is not JSON")
	ErrTooDeep  = safeio.ErrTooDeep
	ErrTooLarge = safeio.ErrTooLarge
)

// validate checks artifact bytes: a JSON value with LF line ends, no
// byte-order mark, within safeio's limits (not nested deeper than
// safeio.MaxDepth, not over safeio.MaxBytes). record validates before
// writing and check after reading, so what one writes the other reads.
func validate(data []byte) error {
	switch {
	case len(bytes.TrimSpace(data)) == 0:
		return ErrEmpty
	case bytes.HasPrefix(data, []byte("\xef\xbb\xbf")):
		return ErrBOM
	case bytes.Contains(data, []byte("\r\n")):
		return ErrCRLF
	}
	if err := safeio.CheckLimits(data); err != nil {
		return err
	}
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		return fmt.Errorf("%w (truncated or edited by hand?): %v", ErrNotJSON, err)
	}
	return nil
}

// fixFor is how to repair a baseline that fails Validate with err; program
// records it again.
func fixFor(err error, program string) string {
	switch {
	case errors.Is(err, ErrBOM), errors.Is(err, ErrCRLF):
		return "an editor or git's autocrlf changed it: restore it with git checkout, set '*.json -text' in .gitattributes, or run " + program + " record"
	}
	return "restore it with git checkout or run " + program + " record to write it again"
}

// program is the program's name in the fixes the store suggests.
func (s *Store) program() string {
	if s.Program == "" {
		return "oracle"
	}
	return s.Program
}

// List returns the keys of every baseline in the store, sorted. Files that
// are not baselines are ignored; a symlink, FIFO, device or socket anywhere
// in the store (the store's folder included) is an error naming it.
func (s *Store) List() ([]Key, error) {
	return s.listKeys("baselines", taskOf)
}

// taskOf returns the task of a baseline file name (<TASK>.<file of Files>).
func taskOf(name string) (string, bool) {
	for _, f := range storedFiles {
		if task, ok := strings.CutSuffix(name, "."+f); ok {
			return task, true
		}
	}
	return "", false
}
