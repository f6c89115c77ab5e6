package timeline

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/internal/safeio"
	"github.com/agent-oracle/oracle/runner"
)

// Files are the artifact files a rollout may have, in the order the page
// lists them: those of a run folder, or <TASK>.<file> for a case.
var Files = []string{runner.RunFile, runner.ResultFile, runner.CallsFile, runner.StateDiffFile, runner.TraceFile}

// Source is where the artifacts of one rollout are: a run folder
// (.silo/runs/<runId>/) or a case laid out like the baseline store
// (<env>/<agent>/<TASK>.<file>: a check's report folder keeps the fresh
// artifacts of its cases so under fresh/).
type Source struct {
	// Path is the run folder, or the case's path without a file suffix
	// (DIR/fresh/crm/solver/TASK-002).
	Path string
	// Case is the case's key (crm/solver/TASK-002) when Path is a case.
	Case string
	// Paths are the files that are there (even when not readable), by
	// the name of the artifact file.
	Paths map[string]string
}

// Folder is the folder the page may be written to beside the artifacts: a
// run folder, or "" for a case (oracle writes nothing of its own among a
// case's files).
func (s *Source) Folder() string {
	if s.Case != "" {
		return ""
	}
	return s.Path
}

// usage names what view takes, for errors.
const usage = "give a run folder (.silo/runs/<runId>) or a case of a report folder (DIR/fresh/ENV/AGENT/TASK, or DIR and ENV/AGENT/TASK)"

// Locate finds the rollout at path: a run folder, a run folder's file, a
// case (DIR/fresh/crm/solver/TASK-002) or one of its files, or a run id
// (run_…) of the runs folder runs. Neither the run folder nor the folders
// of a case may be symlinks, nor anything under a .silo folder on the way.
func Locate(path, runs string) (*Source, error) {
	info, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if src, err := locateCase(path, ""); src != nil || err != nil {
			return src, err
		}
		if runs != "" && !strings.ContainsAny(path, `/\`) && path != "." && path != ".." {
			if _, err := os.Lstat(filepath.Join(runs, path)); err == nil {
				return Locate(filepath.Join(runs, path), "")
			}
		}
		return nil, fmt.Errorf("%s: no such run folder or case; %s", path, usage)
	case err != nil:
		return nil, err
	case info.Mode()&fs.ModeSymlink != 0:
		return nil, fmt.Errorf("%s is a symlink; oracle view follows no link: name the folder or file itself", path)
	case info.IsDir():
		return locateRun(path)
	case !info.Mode().IsRegular():
		return nil, readError(safeio.CheckEntry(path, info.Mode().Type()))
	}
	name := filepath.Base(path)
	for _, f := range Files {
		if name == f {
			return locateRun(filepath.Dir(path))
		}
		if prefix, ok := strings.CutSuffix(path, "."+f); ok {
			return locateCase(prefix, "")
		}
	}
	return nil, fmt.Errorf("%s is a file that is not an artifact; %s", path, usage)
}

// LocateCase finds the case key (ENV/AGENT/TASK) of the report folder dir:
// under dir/fresh/, or under dir itself when it has no fresh/ (a baseline
// store, .silo/baselines). dir may be reached through a symlink; below it
// nothing is followed.
func LocateCase(dir, key string) (*Source, error) {
	k, err := baseline.ParseKey(key)
	if err != nil {
		return nil, fmt.Errorf("%w; name the case as ENV/AGENT/TASK, e.g. crm/solver/TASK-002", err)
	}
	switch info, err := os.Stat(dir); {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%s: no such report folder; %s", dir, usage)
	case err != nil:
		return nil, err
	case !info.IsDir():
		return nil, fmt.Errorf("%s is not a folder; name the report folder that holds fresh/", dir)
	}
	root := filepath.Join(dir, "fresh")
	if _, err := os.Lstat(root); errors.Is(err, fs.ErrNotExist) {
		root = dir
	}
	prefix := filepath.Join(root, k.Env, k.Agent, k.Task)
	src, err := locateCase(prefix, dir)
	if src == nil && err == nil {
		return nil, fmt.Errorf("%s has no case %s: no %s.* under %s", dir, k, k.Task, filepath.Dir(prefix))
	}
	return src, err
}

// locateRun is the run folder dir: it must hold one of the artifacts.
func locateRun(dir string) (*Source, error) {
	if err := checkFolders(dir, filepath.Dir(dir)); err != nil {
		return nil, err
	}
	src := &Source{Path: dir, Paths: map[string]string{}}
	for _, f := range Files {
		if p := filepath.Join(dir, f); exists(p) {
			src.Paths[f] = p
		}
	}
	if len(src.Paths) > 0 {
		return src, nil
	}
	if exists(filepath.Join(dir, "fresh")) || exists(filepath.Join(dir, "report.json")) {
		return nil, fmt.Errorf("%s is a report folder; name one of its cases: %s/fresh/ENV/AGENT/TASK, or %s ENV/AGENT/TASK", dir, dir, dir)
	}
	if tasks := casesIn(dir); len(tasks) > 0 {
		return nil, fmt.Errorf("%s holds the files of cases, not a run; name one: %s", dir, filepath.Join(dir, tasks[0]))
	}
	return nil, fmt.Errorf("%s holds no run: none of %s is there; %s", dir, strings.Join(Files, ", "), usage)
}

// locateCase is the case whose files are prefix.<file>, or nil when no
// such file is there. The folders of the case below base (or, when base is
// "", the env folder's parent: the store) may not be symlinks.
func locateCase(prefix, base string) (*Source, error) {
	src := &Source{Path: prefix, Paths: map[string]string{}}
	for _, f := range Files {
		if f == runner.RunFile {
			continue // a case has no run.json
		}
		if p := prefix + "." + f; exists(p) {
			src.Paths[f] = p
		}
	}
	if len(src.Paths) == 0 {
		return nil, nil
	}
	agentDir := filepath.Dir(prefix)
	envDir := filepath.Dir(agentDir)
	if base == "" {
		base = filepath.Dir(filepath.Dir(envDir))
	}
	if err := checkFolders(agentDir, base); err != nil {
		return nil, err
	}
	k := baseline.Key{Env: filepath.Base(envDir), Agent: filepath.Base(agentDir), Task: filepath.Base(prefix)}
	if k.Check() == nil {
		src.Case = k.String()
	} else {
		src.Case = filepath.Base(prefix)
	}
	return src, nil
}

// checkFolders refuses a symlink among the folders below base down to
// dir, and among those below the project when dir lies under a .silo
// folder (base and dir as given, base above dir).
func checkFolders(dir, base string) error {
	dir, base = filepath.Clean(dir), filepath.Clean(base)
	sep := string(filepath.Separator)
	if i := strings.LastIndex(sep+dir+sep, sep+".silo"+sep); i >= 0 {
		project := dir[:i]
		switch {
		case project == "":
			project = "."
		case project != sep:
			project = strings.TrimSuffix(project, sep)
		}
		if rel, err := filepath.Rel(project, base); err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+sep) {
			base = project
		}
	}
	return readError(safeio.CheckChain(base, dir))
}

// readError words an error of reading a file or folder of the rollout:
// a symlink, a file that is not regular or is too large is named.
func readError(err error) error {
	var pe *fs.PathError
	if err == nil || !errors.As(err, &pe) {
		return err
	}
	switch {
	case errors.Is(err, safeio.ErrSymlink):
		return fmt.Errorf("%s is a symlink; oracle view reads nothing through a link: replace it with the file or folder itself", pe.Path)
	case errors.Is(err, safeio.ErrNotRegular), errors.Is(err, safeio.ErrTooLarge), errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%s: %v", pe.Path, pe.Err)
	}
	return err
}

// casesIn lists the tasks whose case files (<TASK>.result.json, …) are in
// dir, sorted.
func casesIn(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var tasks []string
	for _, e := range entries {
		for _, f := range Files {
			if task, ok := strings.CutSuffix(e.Name(), "."+f); ok && task != "" && !slices.Contains(tasks, task) {
				tasks = append(tasks, task)
			}
		}
	}
	slices.Sort(tasks)
	return tasks
}

// exists reports whether something (of any type) is at path.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
