package baseline

import (
	"errors"
	"fmt"
	"io/fs"
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
// an error naming it. It is opened read-only and never written: a lock file
// that is a hard link to a file elsewhere is locked, not truncated. Lock
// fails at once, with ErrLocked and the holder's pid, when another writer
// holds it.
//
// The holder's pid is in a file of its own, .lock.holder, made new by the
// holder (never an existing file opened for writing) and removed by unlock.
// A holder file that is there when Lock takes the lock was left by a writer
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
	holder := path + holderSuffix
	if err := lockFile(f); err != nil {
		f.Close()
		if errors.Is(err, errWouldBlock) {
			who := "another process"
			if pid, err := safeio.ReadNoFollow(holder); err == nil && len(pid) < 32 && strings.TrimSpace(string(pid)) != "" {
				who = "process " + strings.TrimSpace(string(pid))
			}
			return nil, fmt.Errorf("%w: %s is recording into %s; wait for it to finish and run again", ErrLocked, who, s.Root)
		}
		return nil, fmt.Errorf("lock baselines: %w", err)
	}
	if _, err := os.Lstat(holder); err == nil {
		// a writer was killed while it held the lock; its holder file
		// goes (the name only: whatever it is, nothing is written to it)
		s.removeTemporaries()
		if err := os.Remove(holder); err != nil {
			_ = unlockFile(f)
			f.Close()
			return nil, fmt.Errorf("lock baselines: %w; remove it", err)
		}
	}
	if err := writeHolder(holder); err != nil {
		_ = unlockFile(f)
		f.Close()
		return nil, fmt.Errorf("lock baselines: %w", err)
	}
	return func() error {
		rerr := os.Remove(holder)
		_ = unlockFile(f)
		if err := f.Close(); err != nil {
			return err
		}
		if rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			return rerr
		}
		return nil
	}, nil
}

// holderSuffix names the file beside the lock that holds the holder's pid.
const holderSuffix = ".holder"

// writeHolder makes the holder file, new (O_EXCL: never a file that was
// there, nor one a symlink names), with the process's pid.
func writeHolder(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|safeio.OpenFlagsNoFollow, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(strconv.Itoa(os.Getpid()) + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// openLockFile opens (creating it if need be) the lock file read-only,
// without following a symlink and without blocking on a FIFO, and checks
// that it is a regular file.
func openLockFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE|safeio.OpenFlagsNoFollow|openNonBlock, 0o644)
	if err != nil {
		if info, lerr := os.Lstat(path); lerr == nil {
			if cerr := safeio.CheckEntry(path, info.Mode().Type()); cerr != nil {
				return nil, cerr
			}
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
