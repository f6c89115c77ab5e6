package oracle

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/internal/atomicfile"
	"github.com/agent-oracle/oracle/internal/canon"
	"github.com/agent-oracle/oracle/internal/safeio"
	"github.com/agent-oracle/oracle/runner"
)

// TraceFile is the fresh trace's artifact name in a report folder.
const TraceFile = runner.TraceFile

// WriteReportDir writes the report as JSON (report.json) and in the other
// formats the caller rendered (rendered: file name → bytes, e.g. report.txt,
// report.md, report.xml, index.html), the fresh artifacts of every case that
// did not match, laid out like the baseline store
// (fresh/<env>/<agent>/<TASK>.result.json), and their fresh traces
// (fresh/<env>/<agent>/<TASK>.trace.jsonl), so a reviewer can inspect them
// without a rerun and oracle accept --from can take them, and
// fresh/<env>/<agent>/<TASK>.obsolete for each obsolete case, whose baseline
// accept --from removes. The fresh
// artifacts and traces a previous check left there are removed first, so
// the folder shows this run only; files oracle does not write there are
// left alone.
//
// dir may be anywhere and may be reached through a symlink, but it must be
// a folder (it is made when missing). Inside it nothing is followed: a
// symlink, FIFO or other non-regular file where a report file should be,
// or a symlink anywhere under fresh/, is an error naming it, found before
// anything is written or removed.
func WriteReportDir(dir string, res *CheckResult, rendered map[string][]byte) error {
	switch info, err := os.Stat(dir); {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("report dir: %w", err)
		}
	case err != nil:
		return fmt.Errorf("report dir: %w", err)
	case !info.IsDir():
		return fmt.Errorf("report dir: %s is not a folder; name a folder", dir)
	}
	js, err := canon.Marshal(res.Report)
	if err != nil {
		return fmt.Errorf("report dir: %w", err)
	}
	files := map[string][]byte{"report.json": js}
	for name, data := range rendered {
		files[name] = data
	}
	store := &baseline.Store{Root: filepath.Join(dir, "fresh")}
	// look at everything first, so a planted link stops the report before
	// anything is written or removed
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if err := checkReportFile(filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("report dir: %w", err)
		}
	}
	if err := safeio.CheckTree(store.Root); err != nil {
		return reportDirError(err)
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if err := writeReportFile(dir, filepath.Join(dir, name), files[name]); err != nil {
			return reportDirError(err)
		}
	}
	if err := clearFresh(store.Root); err != nil {
		return fmt.Errorf("report dir: %w", err)
	}
	for k, e := range res.Fresh {
		if _, err := store.Write(k, e); err != nil {
			return reportDirError(err)
		}
	}
	// an obsolete case's removal, for oracle accept --from
	fresh := baseline.NewPending(store.Root)
	for _, cr := range res.Report.Cases {
		if cr.Status == StatusObsolete {
			if err := fresh.MarkObsolete(cr.Key()); err != nil {
				return reportDirError(err)
			}
		}
	}
	for k, trace := range res.Traces {
		if trace == nil {
			continue
		}
		if err := writeReportFile(dir, store.Path(k, TraceFile), trace); err != nil {
			return reportDirError(err)
		}
	}
	return nil
}

// reportDirError wraps an error of the report folder; a symlink is named
// with the report folder's rule rather than the store's.
func reportDirError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && (errors.Is(err, safeio.ErrSymlink) || errors.Is(err, safeio.ErrSymlinkWrite)) {
		return fmt.Errorf("report dir: %s", symlinkRefused(pe.Path))
	}
	return fmt.Errorf("report dir: %w", err)
}

func symlinkRefused(path string) string {
	return path + " is a symlink; oracle writes no report through a link: remove it"
}

// checkReportFile reports an error when path exists and is not a regular
// file: a symlink there is never written through.
func checkReportFile(path string) error {
	info, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if info.Mode()&fs.ModeSymlink != 0 {
		return errors.New(symlinkRefused(path))
	}
	if !info.Mode().IsRegular() {
		return safeio.CheckEntry(path, info.Mode().Type())
	}
	return nil
}

// writeReportFile writes data to path inside the report folder dir without
// following a link: the folders between dir and path and path itself are
// looked at, and the bytes go to a new temporary file renamed over path
// (a rename replaces a name, it never writes through one).
func writeReportFile(dir, path string, data []byte) error {
	if err := checkReportFile(path); err != nil {
		return err
	}
	return atomicfile.Write(dir, path, data)
}

// clearFresh removes the artifact files an earlier report left under root
// (<env>/<agent>/<TASK>.<artifact>, regular files only, no link followed)
// and the folders that removing them left empty. Anything else stays.
func clearFresh(root string) error {
	info, err := os.Lstat(root)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case !info.IsDir():
		return fmt.Errorf("%s is not a folder; remove it", root)
	}
	emptied := map[string]bool{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		depth := len(strings.Split(filepath.ToSlash(rel), "/"))
		if d.IsDir() {
			if rel != "." && depth > 2 {
				return filepath.SkipDir
			}
			return nil
		}
		if depth != 3 || !d.Type().IsRegular() || !isArtifactFile(d.Name()) {
			return nil
		}
		if err := os.Remove(path); err != nil {
			return err
		}
		emptied[filepath.Dir(path)] = true
		emptied[filepath.Dir(filepath.Dir(path))] = true
		return nil
	})
	if err != nil {
		return err
	}
	dirs := make([]string, 0, len(emptied))
	for d := range emptied {
		dirs = append(dirs, d)
	}
	sort.Sort(sort.Reverse(sort.StringSlice(dirs))) // deeper folders first
	for _, d := range dirs {
		os.Remove(d) // only succeeds when empty
	}
	return nil
}

// isArtifactFile reports whether name is <TASK>.<artifact> for one of the
// artifact files of a baseline or the fresh trace, or <TASK>.obsolete.
func isArtifactFile(name string) bool {
	if task, ok := strings.CutSuffix(name, baseline.ObsoleteSuffix); ok && env.CheckName(task) == nil {
		return true
	}
	for _, f := range append(slices.Clone(baseline.Files), TraceFile) {
		if task, ok := strings.CutSuffix(name, "."+f); ok && env.CheckName(task) == nil {
			return true
		}
	}
	return false
}

// CheckReportDir refuses a report folder that is, or lies inside, the .silo
// folder of the project at projectDir: the report and its fresh artifacts
// would be written into the store (a fresh/ tree under .silo/baselines
// reads as baselines). Symlinks of both are resolved before comparing; a
// report folder that does not exist yet is resolved through its nearest
// existing parent.
func CheckReportDir(projectDir, dir string) error {
	project, err := resolvePath(projectDir)
	if err != nil {
		return fmt.Errorf("report dir: %w", err)
	}
	report, err := resolvePath(dir)
	if err != nil {
		return fmt.Errorf("report dir: %w", err)
	}
	silos := []string{filepath.Join(project, ".silo")}
	if real, err := resolvePath(silos[0]); err == nil {
		silos = append(silos, real)
	}
	for _, silo := range silos {
		if rel, err := filepath.Rel(silo, report); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return fmt.Errorf("report dir: %s is or lies inside the project's .silo, where the report and its fresh artifacts would mix with the store; name a folder outside .silo", dir)
		}
	}
	return nil
}

// resolvePath returns the absolute path of p with the symlinks of its
// longest existing prefix resolved.
func resolvePath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	rest := ""
	for {
		real, err := filepath.EvalSymlinks(abs)
		if err == nil {
			return filepath.Join(real, rest), nil
		}
		parent := filepath.Dir(abs)
		if parent == abs {
			return filepath.Join(abs, rest), nil
		}
		rest = filepath.Join(filepath.Base(abs), rest)
		abs = parent
	}
}
