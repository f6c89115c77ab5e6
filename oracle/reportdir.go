package oracle

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/internal/canon"
)

// WriteReportDir writes the report in every format (report.txt, report.json,
// report.md, report.xml) and the fresh artifacts of every case that did not
// match, laid out like the baseline store (<env>/<agent>/<TASK>.result.json),
// so a reviewer can inspect them without a rerun or copy them over the
// baselines. The fresh artifacts a previous check left there are removed
// first, so the folder shows this run only; files oracle does not write
// there are left alone.
func WriteReportDir(dir string, res *CheckResult) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("report dir: %w", err)
	}
	js, err := canon.Marshal(res.Report)
	if err != nil {
		return fmt.Errorf("report dir: %w", err)
	}
	var txt, md, junit bytes.Buffer
	if err := WriteText(&txt, res.Report, TextOptions{All: true, MaxValue: 1000}); err != nil {
		return err
	}
	if err := WriteMarkdown(&md, res.Report); err != nil {
		return err
	}
	if err := WriteJUnit(&junit, res.Report); err != nil {
		return err
	}
	files := map[string][]byte{"report.json": js, "report.txt": txt.Bytes(), "report.md": md.Bytes(), "report.xml": junit.Bytes()}
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
// artifact files of a baseline.
func isArtifactFile(name string) bool {
	for _, f := range baseline.Files {
		if task, ok := strings.CutSuffix(name, "."+f); ok && env.CheckName(task) == nil {
			return true
		}
	}
	return false
}
