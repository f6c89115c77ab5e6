package env

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/agent-oracle/oracle/internal/safeio"
)

// manifest checks the project's manifest for e, when there is one: it
// parses, its name matches, its entrypoint is a folder, and the task files
// there are the tasks e was built with.
func (v *validation) manifest(e Environment, built []Task, projectDir string) {
	rel := filepath.ToSlash(ManifestPath(e.Name()))
	if _, err := os.Stat(filepath.Join(projectDir, ManifestPath(e.Name()))); errors.Is(err, fs.ErrNotExist) {
		return
	}
	m, err := LoadManifest(projectDir, e.Name())
	if err != nil {
		v.add(LevelError, "manifest_invalid", "%v", err)
		return
	}
	if m.Module() {
		// its tasks are read from its folder at every run: none is stale
		if info, err := os.Stat(m.EntrypointFile(projectDir)); err != nil || !info.Mode().IsRegular() {
			v.add(LevelError, "manifest_invalid", "%s: entrypoint %s is not a file in %s; set it to the environment's module, relative to that folder", rel, m.Entrypoint, filepath.ToSlash(filepath.Dir(ManifestPath(m.Name))))
		}
		return
	}
	dir := m.Dir(projectDir)
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		v.add(LevelError, "manifest_invalid", "%s: entrypoint %s is not a folder of the project; set it to the folder of the environment's Go package", rel, m.Entrypoint)
		return
	}
	if _, err := os.Stat(filepath.Join(dir, "tasks")); err != nil {
		return
	}
	onDisk, err := LoadTasks(safeio.DirFS(dir))
	if err != nil {
		v.add(LevelError, "task_invalid", "%s: %v; fix the task file", m.Entrypoint, err)
		return
	}
	if stale := staleTasks(built, onDisk); len(stale) > 0 {
		v.add(LevelWarning, "tasks_stale", "the task files in %s differ from the tasks %s was built with (%s); tasks are embedded at build time, so rebuild to pick them up",
			m.Entrypoint, e.Name(), strings.Join(stale, ", "))
	}
}

// staleTasks names the tasks that differ between the built environment and
// the files on disk: "TASK-009 added", "TASK-002 changed", "TASK-003 removed".
func staleTasks(built, onDisk []Task) []string {
	was := map[string]Task{}
	for _, t := range built {
		was[t.ID] = t
	}
	var out []string
	for _, t := range onDisk {
		old, ok := was[t.ID]
		switch {
		case !ok:
			out = append(out, t.ID+" added")
		case !sameTask(old, t):
			out = append(out, t.ID+" changed")
		}
		delete(was, t.ID)
	}
	for id := range was {
		out = append(out, id+" removed")
	}
	sort.Strings(out)
	return out
}

func sameTask(a, b Task) bool {
	if len(a.Entities) == 0 && len(b.Entities) == 0 {
		a.Entities, b.Entities = nil, nil
	}
	return reflect.DeepEqual(a, b)
}
