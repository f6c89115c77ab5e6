package oracle

import (
	"errors"
	"fmt"
	"io"
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
	"github.com/agent-oracle/oracle/internal/safeio"
	"github.com/agent-oracle/oracle/oracle/report"
	"github.com/agent-oracle/oracle/runner"
)

// ReportDir writes a check's report folder (--report-dir): the report in
// each format the caller writes (one file each, which the caller names: the
// formats of package render give report.txt, report.json, report.md,
// report.xml and index.html), the fresh artifacts of every case that did not
// match, laid out like the baseline store
// (fresh/<env>/<agent>/<TASK>.result.json), and their fresh traces
// (fresh/<env>/<agent>/<TASK>.trace.jsonl), so a reviewer can inspect them
// without a rerun and oracle accept --from can take them, the page of each
// such case when SetPages is given one (fresh/<env>/<agent>/<TASK>.view.html),
// and fresh/<env>/<agent>/<TASK>.obsolete for each obsolete case, whose
// baseline accept --from removes. The fresh artifacts and traces a
// previous check left there are removed first, so the folder shows this
// run only; files oracle does not write there are left alone.
//
// It is written from the cases as they come (Add) and put in place at the
// end (Finish): the fresh artifacts wait in a spool, out of memory, so a
// check of any number of cases holds none of them; nothing is written to
// the folder before Finish.
//
// dir may be anywhere and may be reached through a symlink, but it must be
// a folder (it is made when missing). Inside it nothing is followed: a
// symlink, FIFO or other non-regular file where a report file should be,
// or a symlink anywhere under fresh/, is an error naming it, found before
// the cases run and again before anything is written or removed.
type ReportDir struct {
	dir      string
	files    []string
	fresh    *freshSpool
	kept     map[baseline.Key]bool
	obsolete []baseline.Key
	page     func(k baseline.Key, prefix string) ([]byte, error)
}

// SetPages makes Finish write, beside the fresh artifacts of each case
// that did not match, the page page makes of them (the case's timeline):
// prefix is their path without the artifact's suffix
// (DIR/fresh/crm/solver/TASK-002).
func (d *ReportDir) SetPages(page func(k baseline.Key, prefix string) ([]byte, error)) { d.page = page }

// Kept reports whether Add took fresh artifacts of k: Finish writes them
// (and the case's page) to the folder.
func (d *ReportDir) Kept(k baseline.Key) bool { return d.kept[k] }

// OpenReportDir looks at the report folder dir, which Finish makes when it
// is missing, and at the report files it will hold (names in dir); Close
// drops what Add kept.
func OpenReportDir(dir string, files []string) (*ReportDir, error) {
	d := &ReportDir{dir: dir, files: slices.Sorted(slices.Values(files))}
	if err := d.look(); err != nil {
		return nil, err
	}
	d.fresh = newFreshSpool()
	return d, nil
}

// look refuses a report folder that is not a folder and what it holds
// where oracle writes: a report file that is not a regular file, a symlink
// under fresh/. A folder that is missing holds nothing.
func (d *ReportDir) look() error {
	switch info, err := os.Stat(d.dir); {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("report dir: %w", err)
	case !info.IsDir():
		return fmt.Errorf("report dir: %s is not a folder; name a folder", d.dir)
	}
	for _, name := range d.files {
		if err := checkReportFile(filepath.Join(d.dir, name)); err != nil {
			return fmt.Errorf("report dir: %w", err)
		}
	}
	if err := safeio.CheckTree(d.freshRoot()); err != nil {
		return reportDirError(err)
	}
	return nil
}

func (d *ReportDir) freshRoot() string { return filepath.Join(d.dir, FreshDir) }

// Add takes the report of the next case and, when it did not match, its
// fresh artifacts.
func (d *ReportDir) Add(cr *report.Case, kept *Kept) error {
	if cr.Status == report.StatusObsolete {
		d.obsolete = append(d.obsolete, cr.Key())
	}
	if kept == nil {
		return nil
	}
	if d.kept == nil {
		d.kept = map[baseline.Key]bool{}
	}
	d.kept[cr.Key()] = true
	return d.fresh.add(cr.Key(), kept)
}

// Finish writes the folder: each report file by its writer (one of the
// files OpenReportDir was given), each atomically, then the fresh artifacts and traces of the
// cases Add took and the obsolete cases' marks.
func (d *ReportDir) Finish(reports map[string]func(io.Writer) error) error {
	// look again: the folder may have changed while the cases ran
	if err := d.look(); err != nil {
		return err
	}
	if err := os.MkdirAll(d.dir, 0o755); err != nil {
		return fmt.Errorf("report dir: %w", err)
	}
	w := atomicfile.Writer{Base: d.dir}
	for _, name := range slices.Sorted(maps.Keys(reports)) {
		if !slices.Contains(d.files, name) {
			return fmt.Errorf("report dir: %s is not a report file (%s)", name, strings.Join(d.files, ", "))
		}
		if err := w.WriteFrom(filepath.Join(d.dir, name), reports[name]); err != nil {
			return reportDirError(err)
		}
	}
	store := &baseline.Store{Root: d.freshRoot()}
	if err := clearFresh(store.Root); err != nil {
		return fmt.Errorf("report dir: %w", err)
	}
	err := d.fresh.each(func(k baseline.Key, kept *Kept) error {
		if _, err := store.Write(k, kept.Entry); err != nil {
			return err
		}
		if kept.Traced && kept.Trace != nil {
			if err := writeReportFile(d.dir, store.Path(k, runner.TraceFile), kept.Trace); err != nil {
				return err
			}
		}
		if d.page == nil {
			return nil
		}
		prefix := filepath.Join(store.Root, k.Env, k.Agent, k.Task)
		page, err := d.page(k, prefix)
		if err != nil {
			return fmt.Errorf("the page of %s: %w", k, err)
		}
		return writeReportFile(d.dir, prefix+CasePageSuffix, page)
	})
	if err != nil {
		return reportDirError(err)
	}
	// an obsolete case's removal, for oracle accept --from
	marks := baseline.NewPending(store.Root)
	for _, k := range d.obsolete {
		if err := marks.MarkObsolete(k); err != nil {
			return reportDirError(err)
		}
	}
	return nil
}

// Close drops the fresh artifacts Add kept.
func (d *ReportDir) Close() { d.fresh.close() }

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
// artifact files of a baseline or the fresh trace, <TASK>.obsolete, or a
// case's page <TASK>.view.html.
func isArtifactFile(name string) bool {
	for _, suffix := range []string{baseline.ObsoleteSuffix, CasePageSuffix} {
		if task, ok := strings.CutSuffix(name, suffix); ok && env.CheckName(task) == nil {
			return true
		}
	}
	for _, f := range append(slices.Clone(baseline.Files), runner.TraceFile) {
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
