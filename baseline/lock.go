package baseline

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agent-oracle/oracle/internal/safeio"
)

// ErrLocked is returned by Lock when another process holds the store.
var ErrLocked = errors.New("locked")

// Lock takes the store's writer lock, .silo/baselines/.lock, with the
// system's file lock (flock(2) on Unix, LockFileEx on Windows): the lock
// goes with the process, so a killed writer never leaves the store locked.
// The lock file is never a symlink or anything but a regular file: that is
// an error naming it, and nothing is written through it. It fails at once,
// with ErrLocked and the holder's pid, when another writer holds it.
//
// The holder's pid stays in the lock file until unlock empties it. A lock
// file that still names a holder when Lock takes it was left by a writer
// that was killed: Lock then walks the store and removes the temporary files
// that writer left. After a clean unlock the store is not walked, so taking
// the lock does not grow with the store.
func (s *Store) Lock() (unlock func() error, err error) {
	path := filepath.Join(s.Root, ".lock")
	if err := s.checkPath(path); err != nil {
		return nil, fmt.Errorf("lock baselines: %w", err)
	}
	if err := os.MkdirAll(s.Root, 0o755); err != nil {
		return nil, fmt.Errorf("lock baselines: %w", err)
	}
	if err := s.checkPath(path); err != nil {
		return nil, fmt.Errorf("lock baselines: %w", err)
	}
	f, err := openLockFile(path)
	if err != nil {
		return nil, fmt.Errorf("lock baselines: %w", err)
	}
	if err := lockFile(f); err != nil {
		holder := make([]byte, 32)
		n, _ := f.ReadAt(holder, 0)
		holder = holder[:n]
		f.Close()
		if errors.Is(err, errWouldBlock) {
			who := strings.TrimSpace(string(holder))
			if who == "" {
				who = "another process"
			} else {
				who = "process " + who
			}
			return nil, fmt.Errorf("%w: %s is recording into %s; wait for it to finish and run again", ErrLocked, who, s.Root)
		}
		return nil, fmt.Errorf("lock baselines: %w", err)
	}
	var previous [1]byte
	killed, _ := f.ReadAt(previous[:], 0)
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	if killed > 0 {
		s.removeTemporaries()
	}
	return func() error {
		_ = f.Truncate(0)
		_ = unlockFile(f)
		return f.Close()
	}, nil
}

// openLockFile opens (creating it if need be) the lock file without
// following a symlink and without blocking on a FIFO, and checks that it is
// a regular file before anything is written to it.
func openLockFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|safeio.OpenFlagsNoFollow|openNonBlock, 0o644)
	if err != nil {
		if info, lerr := os.Lstat(path); lerr == nil {
			return nil, safeio.CheckEntry(path, info.Mode().Type())
		}
		return nil, err
	}
	info, err := f.Stat()
	if err == nil {
		err = safeio.CheckEntry(path, info.Mode().Type())
	}
	if err == nil && !info.Mode().IsRegular() {
		err = fmt.Errorf("%s is a folder, not the lock file; remove it", path)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// removeTemporaries deletes temporary files a killed writer left behind.
// Only the lock holder calls it, so no write of a lock holder is under way.
func (s *Store) removeTemporaries() {
	_ = filepath.WalkDir(s.Root, func(path string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && strings.HasPrefix(d.Name(), ".") && strings.Contains(d.Name(), ".tmp-") {
			os.Remove(path)
		}
		return nil
	})
}
