//go:build unix

package baseline

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/agent-oracle/oracle/internal/safeio"
)

// hostileProject is a project folder with a recorded baseline and a folder
// outside it holding a JSON file and an empty folder a symlink can point to.
func hostileProject(t *testing.T) (s *Store, outside string) {
	t.Helper()
	dir := t.TempDir()
	project, outside := filepath.Join(dir, "project"), filepath.Join(dir, "outside")
	for _, d := range []string{project, filepath.Join(outside, "crm")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "secret.json"), []byte("{\"secret\": \"outside the project\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s = Open(project)
	if _, err := s.Write(key, Entry{Result: []byte("{}\n"), StateDiff: []byte("{}\n")}); err != nil {
		t.Fatal(err)
	}
	return s, outside
}

func replaceWithSymlink(t *testing.T, path, target string) {
	t.Helper()
	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}

func wantNamed(t *testing.T, err error, path string, want error) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), path) || !errors.Is(err, want) {
		t.Errorf("err = %v, want %v naming %s", err, want, path)
	}
}

// A symlink anywhere under .silo is an error naming it; nothing is read or
// written through it.
func TestStoreFollowsNoSymlink(t *testing.T) {
	t.Run("baseline file to a JSON outside", func(t *testing.T) {
		s, outside := hostileProject(t)
		path := s.Path(key, "result.json")
		replaceWithSymlink(t, path, filepath.Join(outside, "secret.json"))
		_, err := s.Read(key)
		wantNamed(t, err, path, safeio.ErrSymlink)
		if err != nil && strings.Contains(err.Error(), "outside the project") {
			t.Errorf("the error quotes the symlink's target: %v", err)
		}
		_, err = s.Write(key, Entry{Result: []byte("{\"new\": 1}\n")})
		wantNamed(t, err, path, safeio.ErrSymlink)
		_, err = s.List()
		wantNamed(t, err, path, safeio.ErrSymlink)
	})
	t.Run("environment folder: record writes nothing outside", func(t *testing.T) {
		s, outside := hostileProject(t)
		path := filepath.Join(s.Root, "crm")
		replaceWithSymlink(t, path, filepath.Join(outside, "crm"))
		_, err := s.Write(key, Entry{Result: []byte("{}\n"), StateDiff: []byte("{}\n")})
		wantNamed(t, err, path, safeio.ErrSymlink)
		_, err = s.Read(key)
		wantNamed(t, err, path, safeio.ErrSymlink)
		wantNamed(t, s.Remove(key), path, safeio.ErrSymlink)
		if entries, _ := os.ReadDir(filepath.Join(outside, "crm")); len(entries) != 0 {
			t.Errorf("wrote %d entries outside the project", len(entries))
		}
	})
	t.Run("the baselines folder: obsolete baselines are not hidden", func(t *testing.T) {
		s, outside := hostileProject(t)
		replaceWithSymlink(t, s.Root, outside)
		_, err := s.List()
		wantNamed(t, err, s.Root, safeio.ErrSymlink)
	})
	t.Run(".silo itself", func(t *testing.T) {
		s, outside := hostileProject(t)
		silo := filepath.Dir(s.Root)
		if err := os.Rename(silo, filepath.Join(outside, "silo")); err != nil {
			t.Fatal(err)
		}
		replaceWithSymlink(t, silo, filepath.Join(outside, "silo"))
		_, err := s.Read(key)
		wantNamed(t, err, silo, safeio.ErrSymlink)
		_, err = s.List()
		wantNamed(t, err, silo, safeio.ErrSymlink)
		_, err = s.Lock()
		wantNamed(t, err, silo, safeio.ErrSymlink)
	})
	t.Run("the lock: its target is not truncated", func(t *testing.T) {
		s, outside := hostileProject(t)
		target := filepath.Join(outside, "secret.json")
		before, _ := os.ReadFile(target)
		path := filepath.Join(s.Root, ".lock")
		replaceWithSymlink(t, path, target)
		unlock, err := s.Lock()
		if err == nil {
			unlock()
		}
		wantNamed(t, err, path, safeio.ErrSymlink)
		if after, _ := os.ReadFile(target); string(after) != string(before) {
			t.Errorf("the lock's target changed: %q", after)
		}
	})
}

// The lock never writes what it opens: a lock file, or a holder file left
// by a killed writer, that is a hard link to a file outside the project
// keeps its bytes; the holder's pid goes to a file the lock makes new.
func TestLockWritesNothingItOpens(t *testing.T) {
	for _, name := range []string{".lock", ".lock.holder"} {
		t.Run(name, func(t *testing.T) {
			s, outside := hostileProject(t)
			target := filepath.Join(outside, "secret.json")
			before, err := os.ReadFile(target)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(s.Root, name)
			os.Remove(path)
			if err := os.Link(target, path); err != nil {
				t.Skipf("no hard link here: %v", err)
			}
			unlock, err := s.Lock()
			if err != nil {
				t.Fatal(err)
			}
			if pid, err := os.ReadFile(filepath.Join(s.Root, ".lock.holder")); err != nil || strings.TrimSpace(string(pid)) != strconv.Itoa(os.Getpid()) {
				t.Errorf("the holder file holds %q (%v), want the pid", pid, err)
			}
			if _, err := s.Lock(); !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "process "+strconv.Itoa(os.Getpid())) {
				t.Errorf("a second Lock: %v, want ErrLocked naming the holder", err)
			}
			if err := unlock(); err != nil {
				t.Fatal(err)
			}
			if after, _ := os.ReadFile(target); string(after) != string(before) {
				t.Errorf("the linked file outside changed: %q, was %q", after, before)
			}
			if _, err := os.Lstat(filepath.Join(s.Root, ".lock.holder")); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the holder file is left after unlock: %v", err)
			}
		})
	}
}

// Only regular files are read: a FIFO baseline or lock is an error naming
// it at once, never a wait for a writer, even while the store is locked.
func TestStoreReadsOnlyRegularFiles(t *testing.T) {
	s, _ := hostileProject(t)
	unlock, err := s.Lock()
	if err != nil {
		t.Fatal(err)
	}
	path := s.Path(key, "result.json")
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	_, err = s.Read(key)
	wantNamed(t, err, path, safeio.ErrNotRegular)
	_, err = s.Write(key, Entry{Result: []byte("{}\n")})
	wantNamed(t, err, path, safeio.ErrNotRegular)
	_, err = s.List()
	wantNamed(t, err, path, safeio.ErrNotRegular)
	unlock()

	lock := filepath.Join(s.Root, ".lock")
	if err := os.Remove(lock); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(lock, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = s.Lock()
	wantNamed(t, err, lock, safeio.ErrNotRegular)
}

// What record would write beyond the limits is refused before writing, so
// check never meets a baseline it cannot read.
func TestWriteHoldsTheReadersLimits(t *testing.T) {
	s := &Store{Root: t.TempDir()}
	deep := strings.Repeat("[", safeio.MaxDepth+1) + strings.Repeat("]", safeio.MaxDepth+1) + "\n"
	if _, err := s.Write(key, Entry{Result: []byte(deep)}); !errors.Is(err, ErrTooDeep) {
		t.Errorf("Write of JSON nested %d deep = %v, want ErrTooDeep", safeio.MaxDepth+1, err)
	}
	if _, err := os.Stat(s.Path(key, "result.json")); !os.IsNotExist(err) {
		t.Errorf("the file was written: %v", err)
	}
}

// A Batch and a Reader, which look at each folder once for all the files
// they write or read there, still refuse a symlink at any one file's place
// or at a folder, and write or read nothing through it.
func TestBatchAndReaderFollowNoSymlink(t *testing.T) {
	entry := Entry{Result: []byte("{\"new\": 1}\n"), StateDiff: []byte("{}\n")}
	for _, tt := range []struct {
		name string
		link func(s *Store, outside string) string // plants a symlink, returns its path
	}{
		{"one baseline file among others", func(s *Store, outside string) string {
			path := s.Path(Key{key.Env, key.Agent, "TASK-003"}, "state-diff.json")
			replaceWithSymlink(t, path, filepath.Join(outside, "secret.json"))
			return path
		}},
		{"the agent's folder", func(s *Store, outside string) string {
			path := filepath.Join(s.Root, key.Env, key.Agent)
			replaceWithSymlink(t, path, filepath.Join(outside, "crm"))
			return path
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, outside := hostileProject(t)
			var cases []keyed
			for _, task := range []string{"TASK-001", "TASK-002", "TASK-003", "TASK-004"} {
				if _, err := s.Write(Key{key.Env, key.Agent, task}, Entry{Result: []byte("{}\n"), StateDiff: []byte("{}\n")}); err != nil {
					t.Fatal(err)
				}
				cases = append(cases, keyed{Key{key.Env, key.Agent, task}, entry})
			}
			path := tt.link(s, outside)
			r := s.Reader()
			_, err := r.ReadLike(cases[0].Key, Entry{})
			if sameFolder := filepath.Dir(path) == filepath.Dir(s.Path(cases[0].Key, "result.json")); sameFolder && err != nil {
				t.Fatalf("a good baseline beside the link: %v", err)
			}
			_, err = r.ReadLike(cases[2].Key, Entry{})
			wantNamed(t, err, path, safeio.ErrSymlink)
			secret, _ := os.ReadFile(filepath.Join(outside, "secret.json"))
			_, failed, err := writeAll(s, cases, 4)
			wantNamed(t, err, path, safeio.ErrSymlink)
			if failed < 0 {
				t.Errorf("no case failed")
			}
			if after, _ := os.ReadFile(filepath.Join(outside, "secret.json")); string(after) != string(secret) {
				t.Errorf("written through the link: %q", after)
			}
			if entries, _ := os.ReadDir(filepath.Join(outside, "crm")); len(entries) != 0 {
				t.Errorf("wrote %d entries outside the project", len(entries))
			}
		})
	}
}
