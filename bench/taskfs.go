package bench

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"testing/fstest"
	"time"

	"github.com/agent-oracle/oracle/env"
)

// taskFS holds the synthetic environment's task files,
// tasks/TASK-000001.json upwards, each made when it is read: like an
// embedded file system, it keeps its files out of the heap, so that what a
// benchmark measures of the heap is the environment's parsed tasks, not the
// bytes they were parsed from.
type taskFS struct{ tasks, entities int }

func taskID(i int) string { return fmt.Sprintf("TASK-%06d", i+1) }

// task returns the task of a file name under tasks/.
func (f taskFS) task(name string) (env.Task, bool) {
	id, ok := strings.CutSuffix(name, ".json")
	n, err := strconv.Atoi(strings.TrimPrefix(id, "TASK-"))
	if !ok || err != nil || n < 1 || n > f.tasks || taskID(n-1) != id {
		return env.Task{}, false
	}
	e := EntityID((n - 1) % f.entities)
	return env.Task{ID: id, Title: "Win " + e, Instruction: "Win entity " + e, VerifierID: "VER-001"}, true
}

func (f taskFS) ReadFile(name string) ([]byte, error) {
	dir, file, _ := strings.Cut(name, "/")
	t, ok := f.task(file)
	if dir != "tasks" || !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return json.Marshal(t)
}

func (f taskFS) ReadDir(name string) ([]fs.DirEntry, error) {
	switch name {
	case ".":
		return []fs.DirEntry{entry{name: "tasks", dir: true}}, nil
	case "tasks":
		out := make([]fs.DirEntry, f.tasks)
		for i := range out {
			out[i] = entry{name: taskID(i) + ".json"}
		}
		return out, nil
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

func (f taskFS) Open(name string) (fs.File, error) {
	if name == "." || name == "tasks" {
		// a folder: listed as ReadDir lists it, files not made
		dir := fstest.MapFS{}
		for i := range f.tasks {
			dir["tasks/"+taskID(i)+".json"] = &fstest.MapFile{Mode: 0o444}
		}
		return dir.Open(name)
	}
	data, err := f.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return fstest.MapFS{name: {Data: data, Mode: 0o444}}.Open(name)
}

// entry is a file or folder of taskFS.
type entry struct {
	name string
	dir  bool
}

func (e entry) Name() string               { return e.name }
func (e entry) IsDir() bool                { return e.dir }
func (e entry) Type() fs.FileMode          { return e.Mode().Type() }
func (e entry) Info() (fs.FileInfo, error) { return e, nil }
func (e entry) Size() int64                { return 0 }
func (e entry) ModTime() time.Time         { return time.Time{} }
func (e entry) Sys() any                   { return nil }
func (e entry) Mode() fs.FileMode {
	if e.dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}
