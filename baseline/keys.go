package baseline

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-oracle/oracle/internal/safeio"
)

// Keys yields the keys of every baseline in the store in key order, as List
// returns them, reading one folder at a time: it holds the tasks of one
// agent's folder, never the whole list. A symlink, FIFO, device or socket
// in the store ends the walk with an error naming it, as List's; the key
// yielded with an error is the zero Key.
func (s *Store) Keys() iter.Seq2[Key, error] {
	return s.walkKeys("baselines", taskOf, nil)
}

// KeysNoting is Keys, and calls distribution with each key whose baseline
// holds a StatsFile, before that key is yielded: the one walk that tells a
// check which of its cases are distribution cases, so that the others cost
// no look for a file they do not have.
func (s *Store) KeysNoting(distribution func(Key)) iter.Seq2[Key, error] {
	return s.walkKeys("baselines", taskOf, distribution)
}

// listKeys returns, sorted, the keys walkKeys yields.
func (s *Store) listKeys(what string, task func(name string) (string, bool)) ([]Key, error) {
	var keys []Key
	for k, err := range s.walkKeys(what, task, nil) {
		if err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	if keys == nil {
		keys = []Key{}
	}
	return keys, nil
}

// walkKeys walks the store's layout (<env>/<agent>/<file>) in key order and
// yields the keys of the files whose names task turns into a task, each
// once; what names them in errors. Every entry down to the files is looked
// at: one that is not a folder or a regular file is an error. Files above
// the agents' folders and folders below them are ignored, and so is a key
// with a name that cannot be a case's.
//
// note, when set, is called with each key whose folder holds its
// StatsFile, before the key is yielded.
func (s *Store) walkKeys(what string, task func(name string) (string, bool), note func(Key)) iter.Seq2[Key, error] {
	return func(yield func(Key, error) bool) {
		root := s.Root
		fail := func(err error) {
			if !errors.Is(err, fs.ErrNotExist) { // a folder gone while listed lists nothing more
				yield(Key{}, fmt.Errorf("list %s in %s: %w", what, root, err))
			}
		}
		if err := s.checkPath(root); err != nil {
			yield(Key{}, err)
			return
		}
		info, err := os.Lstat(root)
		if err != nil {
			fail(err)
			return
		}
		if err := safeio.CheckEntry(root, info.Mode().Type()); err != nil {
			fail(err)
			return
		}
		if !info.IsDir() {
			return
		}
		envs, err := subfolders(root)
		if err != nil {
			fail(err)
			return
		}
		for _, e := range envs {
			agents, err := subfolders(filepath.Join(root, e))
			if err != nil {
				fail(err)
				return
			}
			for _, a := range agents {
				tasks, stats, err := folderTasks(filepath.Join(root, e, a), task)
				if err != nil {
					fail(err)
					return
				}
				for _, t := range tasks {
					k := Key{e, a, t}
					if k.Check() != nil {
						continue
					}
					if note != nil && stats[t] {
						note(k)
					}
					if !yield(k, nil) {
						return
					}
				}
			}
		}
	}
}

// subfolders returns the names of the folders in dir, sorted, after
// checking every entry.
func subfolders(dir string) ([]string, error) {
	entries, err := safeio.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, d := range entries {
		if err := safeio.CheckEntry(filepath.Join(dir, d.Name()), d.Type()); err != nil {
			return nil, err
		}
		if d.IsDir() {
			names = append(names, d.Name())
		}
	}
	return names, nil
}

// folderTasks returns the tasks of the files of dir, sorted, each once,
// after checking every entry, and the set of those that have a StatsFile
// (nil when none has). It reads the folder in batches, so a folder of many
// files costs its tasks, not its entries.
func folderTasks(dir string, task func(name string) (string, bool)) (tasks []string, stats map[string]bool, err error) {
	f, err := safeio.OpenDir(dir)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	seen := map[string]bool{}
	for {
		batch, err := f.ReadDir(1024)
		for _, d := range batch {
			if err := safeio.CheckEntry(filepath.Join(dir, d.Name()), d.Type()); err != nil {
				return nil, nil, err
			}
			if !d.Type().IsRegular() {
				continue
			}
			t, ok := task(d.Name())
			if !ok {
				continue
			}
			if !seen[t] {
				t = string([]byte(t)) // not the whole file name
				seen[t] = true
				tasks = append(tasks, t)
			}
			if strings.HasSuffix(d.Name(), "."+StatsFile) {
				if stats == nil {
					stats = map[string]bool{}
				}
				stats[strings.Clone(t)] = true
			}
		}
		if errors.Is(err, io.EOF) || err == nil && len(batch) == 0 {
			break
		}
		if err != nil {
			return nil, nil, err
		}
	}
	slices.Sort(tasks)
	return tasks, stats, nil
}
