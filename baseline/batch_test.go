package baseline

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agent-oracle/oracle/internal/atomicfile"
)

// withSyncFS replaces the file-system flush of a Batch for one test.
func withSyncFS(t *testing.T, f func(dirs []string) error) {
	t.Helper()
	if !atomicfile.CanSyncFS {
		t.Skip("this system fsyncs each temporary file: Commit flushes no file system")
	}
	old := syncFS
	syncFS = f
	t.Cleanup(func() { syncFS = old })
}

// keyed is a case's key with the artifacts to freeze.
type keyed struct {
	Key   Key
	Entry Entry
}

// writeAll freezes cases as a Batch of jobs goroutines to which they are
// added in order and which is then committed.
func writeAll(s *Store, cases []keyed, jobs int) (results []WriteResult, failed int, err error) {
	b := s.NewBatch(min(jobs, len(cases)))
	for _, c := range cases {
		b.Add(c.Key, c.Entry)
	}
	return b.Commit()
}

func batchCases(n int) []keyed {
	var cases []keyed
	for i := range n {
		cases = append(cases, keyed{Key{[]string{"crm", "calendar"}[i%2], "solver", fmt.Sprintf("TASK-%03d", i)}, entryOf(i, "a")})
	}
	return cases
}

// TestBatchFlushesBeforeTheFirstRename: the temporary files, written
// without an fsync each, are made durable by one flush of their folders'
// file systems while none is renamed yet, so a power loss never leaves a
// renamed file whose bytes are not on disk.
func TestBatchFlushesBeforeTheFirstRename(t *testing.T) {
	s := &Store{Root: t.TempDir()}
	cases := batchCases(10)
	flushes := 0
	withSyncFS(t, func(dirs []string) error {
		flushes++
		want := []string{filepath.Join(s.Root, "calendar", "solver"), filepath.Join(s.Root, "crm", "solver")}
		if strings.Join(dirs, "\n") != strings.Join(want, "\n") {
			t.Errorf("flushed %q, want the folders of the files %q", dirs, want)
		}
		for _, c := range cases {
			if _, err := os.Lstat(s.Path(c.Key, "result.json")); err == nil {
				t.Errorf("%s renamed before the flush", c.Key)
			}
		}
		temporaries := 0
		for _, d := range dirs {
			entries, _ := os.ReadDir(d)
			for _, e := range entries {
				if strings.Contains(e.Name(), ".tmp-") {
					temporaries++
				}
			}
		}
		if temporaries != 2*len(cases) {
			t.Errorf("%d temporary files at the flush, want %d", temporaries, 2*len(cases))
		}
		return atomicfile.SyncFS(dirs)
	})
	res, failed, err := writeAll(s, cases, 3)
	if err != nil || failed != -1 {
		t.Fatalf("failed %d: %v", failed, err)
	}
	if flushes != 1 {
		t.Errorf("%d flushes, want 1", flushes)
	}
	for i, c := range cases {
		if res[i] != Written {
			t.Errorf("%s: %v", c.Key, res[i])
		}
		if _, err := s.Read(c.Key); err != nil {
			t.Error(err)
		}
	}
	noTemporaryFiles(t, s.Root)
}

// TestBatchFlushFailureWritesNothing: when the flush fails no file is
// renamed: the first case with files is the error, the rest are not
// written, and no temporary file is left.
func TestBatchFlushFailureWritesNothing(t *testing.T) {
	s := &Store{Root: t.TempDir()}
	cases := batchCases(6)
	withSyncFS(t, func([]string) error { return errors.New("disk gone") })
	res, failed, err := writeAll(s, cases, 2)
	if failed != 0 || err == nil || !strings.Contains(err.Error(), "record crm/solver/TASK-000: disk gone") {
		t.Fatalf("failed %d, err %v; want the first case's flush error", failed, err)
	}
	for i, c := range cases {
		if res[i] == Written {
			t.Errorf("%s written", c.Key)
		}
		if _, err := os.Lstat(s.Path(c.Key, "result.json")); err == nil {
			t.Errorf("%s renamed after a failed flush", c.Key)
		}
	}
	noTemporaryFiles(t, s.Root)
}

// TestBatchFsyncsEachFileWhereSyncfsIsRefused: a system or sandbox that
// refuses syncfs (ENOSYS, EPERM) gets an fsync of each temporary file
// instead, and the batch is written.
func TestBatchFsyncsEachFileWhereSyncfsIsRefused(t *testing.T) {
	for _, refusal := range []error{syscall.ENOSYS, syscall.EPERM} {
		t.Run(refusal.Error(), func(t *testing.T) {
			s := &Store{Root: t.TempDir()}
			cases := batchCases(4)
			withSyncFS(t, func(dirs []string) error { return fmt.Errorf("flush the file system of %s: %w", dirs[0], refusal) })
			res, failed, err := writeAll(s, cases, 2)
			if err != nil || failed != -1 {
				t.Fatalf("failed %d: %v", failed, err)
			}
			for i, c := range cases {
				if res[i] != Written {
					t.Errorf("%s: %v", c.Key, res[i])
				}
			}
			noTemporaryFiles(t, s.Root)
		})
	}
}
