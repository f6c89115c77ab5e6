package oracle

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/internal/canon"
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
func WriteReportDir(dir string, res *CheckResult, rendered map[string][]byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("report dir: %w", err)
	}
	js, err := canon.Marshal(res.Report)
	if err != nil {
		return fmt.Errorf("report dir: %w", err)
	}
	files := map[string][]byte{"report.json": js}
	for name, data := range rendered {
		files[name] = data
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return fmt.Errorf("report dir: %w", err)
		}
	}
	store := &baseline.Store{Root: filepath.Join(dir, "fresh")}
	if err := clearFresh(store.Root); err != nil {
		return fmt.Errorf("report dir: %w", err)
	}
	for k, e := range res.Fresh {
		if _, err := store.Write(k, e); err != nil {
			return fmt.Errorf("report dir: %w", err)
		}
	}
	// an obsolete case's removal, for oracle accept --from
	fresh := baseline.NewPending(store.Root)
	for _, cr := range res.Report.Cases {
		if cr.Status == StatusObsolete {
			if err := fresh.MarkObsolete(cr.Key()); err != nil {
				return fmt.Errorf("report dir: %w", err)
			}
		}
	}
	for k, trace := range res.Traces {
		if trace == nil {
			continue
		}
		if err := os.WriteFile(store.Path(k, TraceFile), trace, 0o644); err != nil {
			return fmt.Errorf("report dir: %w", err)
		}
	}
	return nil
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
