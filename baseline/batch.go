package baseline

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/agent-oracle/oracle/internal/atomicfile"
)

// Batch freezes many cases as Write freezes them one after another, taking
// the cases as they come: while they are added, jobs goroutines compare
// each file with the store's and write the ones that differ to temporary
// files beside them; Commit then makes the temporary files durable, renames
// them into place in the order the cases were added and fsyncs each folder
// that received a file once. A file is so replaced atomically, as Write
// replaces it, with one folder fsync per folder instead of one per file.
// Where the system can flush a whole file system at once (Linux's
// syncfs), the temporary files are made durable by one such flush before
// the first rename rather than by one fsync each, which costs a journal
// commit per file. Discard
// instead removes the temporary files and the folders the batch made, and
// the store is as it was. A Batch holds the names of its temporary files,
// not the bytes of the cases.
type Batch struct {
	s     *Store
	dirs  *folders
	queue chan batchJob
	wg    sync.WaitGroup

	mu     sync.Mutex // guards the three lists
	keys   []Key
	staged [][]stagedFile
	errs   []error
	// stopped is the lowest index whose staging failed: the cases after it
	// are not written, so not staged
	stopped atomic.Int64
}

type batchJob struct {
	i int
	k Key
	e Entry
}

// NewBatch starts a batch with jobs goroutines (at least 1) writing the
// temporary files.
func (s *Store) NewBatch(jobs int) *Batch {
	jobs = max(jobs, 1)
	b := &Batch{s: s, dirs: &folders{store: s}, queue: make(chan batchJob, 4*jobs)}
	b.stopped.Store(math.MaxInt64)
	for range jobs {
		b.wg.Add(1)
		go b.work()
	}
	return b
}

// Add adds a case to the batch. It waits while the writers are behind.
func (b *Batch) Add(k Key, e Entry) {
	b.mu.Lock()
	i := len(b.keys)
	b.keys = append(b.keys, k)
	b.staged = append(b.staged, nil)
	b.errs = append(b.errs, nil)
	b.mu.Unlock()
	b.queue <- batchJob{i, k, e}
}

func (b *Batch) work() {
	defer b.wg.Done()
	for j := range b.queue {
		if int64(j.i) > b.stopped.Load() {
			continue // after a failure: not written
		}
		staged, err := b.s.stage(j.k, j.e, b.dirs, atomicfile.CanSyncFS)
		b.mu.Lock()
		b.staged[j.i], b.errs[j.i] = staged, err
		b.mu.Unlock()
		for err != nil {
			cur := b.stopped.Load()
			if int64(j.i) >= cur || b.stopped.CompareAndSwap(cur, int64(j.i)) {
				break
			}
		}
	}
}

// wait ends the adding and waits for the writers.
func (b *Batch) wait() {
	close(b.queue)
	b.wg.Wait()
}

// Commit waits for the temporary files and renames them into place. It
// returns what happened to each case, in the order they were added, up to
// failed, the index of the first case that could not be written (its error
// is err, a *WriteError; some of its files may have been renamed, and then
// its result is Written and the error says Replaced), or -1. The cases after failed are not written. err with failed
// -1 means every file is in place but a folder could not be fsynced.
func (b *Batch) Commit() (results []WriteResult, failed int, err error) {
	b.wait()
	results = make([]WriteResult, len(b.keys))
	failed = -1
	synced := b.syncStaged()
	renamed := map[string]bool{}
	for i, k := range b.keys {
		if failed >= 0 {
			discard(b.staged[i])
			continue
		}
		if b.errs[i] != nil {
			failed, err = i, b.errs[i]
			continue
		}
		if synced != nil && len(b.staged[i]) > 0 {
			discard(b.staged[i])
			failed, err = i, &WriteError{Key: k, Err: synced}
			continue
		}
		for j, f := range b.staged[i] {
			if f.tmp == "" {
				// the other kind's file, after this kind's are in place
				if rerr := os.Remove(f.path); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
					failed, err = i, &WriteError{Key: k, Err: rerr, Replaced: j > 0}
					break
				}
				results[i] = Written
				renamed[filepath.Dir(f.path)] = true
				continue
			}
			if rerr := os.Rename(f.tmp, f.path); rerr != nil {
				discard(b.staged[i][j:])
				failed, err = i, &WriteError{Key: k, Err: rerr, Replaced: j > 0}
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

// syncFS flushes file systems; tests replace it.
var syncFS = atomicfile.SyncFS

// syncStaged makes the temporary files durable when they were written
// without fsync: one flush of each file system that holds their folders.
func (b *Batch) syncStaged() error {
	if !atomicfile.CanSyncFS {
		return nil // each was fsynced
	}
	dirs := map[string]bool{}
	for i, st := range b.staged {
		if b.errs[i] != nil {
			break // nothing after it is renamed
		}
		for _, f := range st {
			if f.tmp != "" {
				dirs[filepath.Dir(f.path)] = true
			}
		}
	}
	err := syncFS(slices.Sorted(maps.Keys(dirs)))
	if errors.Is(err, errors.ErrUnsupported) || errors.Is(err, fs.ErrPermission) {
		// a system (or sandbox) that refuses syncfs: an fsync each
		for i, st := range b.staged {
			if b.errs[i] != nil {
				break
			}
			for _, f := range st {
				if f.tmp == "" {
					continue
				}
				if err := atomicfile.SyncFile(f.tmp); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return err
}

// Discard waits for the temporary files and removes them, and the folders
// the batch made: nothing is written.
func (b *Batch) Discard() {
	b.wait()
	for _, st := range b.staged {
		discard(st)
	}
	b.dirs.removeMade()
}
