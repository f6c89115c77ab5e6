package baseline

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// ErrLocked is returned by Lock when another process holds the store.
var ErrLocked = errors.New("locked")

// Lock takes the store's writer lock, .silo/baselines/.lock, with flock(2):
// the lock goes with the process, so a killed writer never leaves the store
// locked. It fails at once, with ErrLocked and the holder's pid, when another
// writer holds it.
func (s *Store) Lock() (unlock func() error, err error) {
	if err := os.MkdirAll(s.Root, 0o755); err != nil {
		return nil, fmt.Errorf("lock baselines: %w", err)
	}
	path := filepath.Join(s.Root, ".lock")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock baselines: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder, _ := os.ReadFile(path)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
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
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	s.removeTemporaries()
	return func() error {
		_ = f.Truncate(0)
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		return f.Close()
	}, nil
}

// removeTemporaries deletes temporary files a killed writer left behind.
// Only the lock holder calls it, so no write is under way.
func (s *Store) removeTemporaries() {
	_ = filepath.WalkDir(s.Root, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasPrefix(d.Name(), ".") && strings.Contains(d.Name(), ".tmp-") {
			os.Remove(path)
		}
		return nil
	})
}
