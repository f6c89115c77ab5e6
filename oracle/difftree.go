package oracle

import (
	"bytes"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agent-oracle/oracle/internal/safeio"
	"github.com/agent-oracle/oracle/runner"
)

// PathDiff is one file's difference in a comparison of two paths.
type PathDiff struct {
	Path string    `json:"path"` // relative to the compared folders, or the file name
	Diff *FileDiff `json:"diff"`
}

// DiffPaths compares two artifact files, two run folders or two baseline
// trees, including artifacts written by the original TypeScript runner.
// Folders are compared file by file on the artifacts they hold (*.json, and
// *.jsonl when all is set; run.json and trace.jsonl carry timestamps and are
// skipped unless all is set). Files present on one side only are reported as
// added or removed. JSON Lines files (*.jsonl) are compared line by line:
// each line is a JSON value, and a change's path starts with the line's
// index from 0 (/3/output is in the fourth line).
//
// A and B may be anywhere, since the user named them, and may be symlinks;
// every file read must be a regular file within safeio.MaxBytes (a device
// or FIFO is an error naming it) and JSON (or JSON Lines): a file that is
// not is an error naming it, even when both sides hold the same bytes.
func DiffPaths(a, b string, all bool) ([]PathDiff, error) {
	ia, err := os.Stat(a)
	if err != nil {
		return nil, fmt.Errorf("diff: %w", err)
	}
	ib, err := os.Stat(b)
	if err != nil {
		return nil, fmt.Errorf("diff: %w", err)
	}
	switch {
	case !ia.IsDir() && !ib.IsDir():
		da, err := readFile(a)
		if err != nil {
			return nil, err
		}
		db, err := readFile(b)
		if err != nil {
			return nil, err
		}
		if d := diffOperands(filepath.Base(b), da, db); d != nil {
			return []PathDiff{{Path: filepath.Base(b), Diff: d}}, nil
		}
		return nil, nil
	case ia.IsDir() != ib.IsDir():
		return nil, fmt.Errorf("diff: compare a file with a file or a folder with a folder; %s and %s are not both", a, b)
	}
	fa, err := artifactFiles(a, all)
	if err != nil {
		return nil, err
	}
	fb, err := artifactFiles(b, all)
	if err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for n := range fa {
		names[n] = true
	}
	for n := range fb {
		names[n] = true
	}
	return diffNames(a, b, slices.Sorted(maps.Keys(names)), fa, fb)
}

// diffNames reads and compares the files of two folders, name by name, with
// a bounded number of workers (stat and read wait on the disk, not the CPU).
// The result is in the order of names, and the error is that of the first
// name in that order that has one, as a reading one file at a time gives.
func diffNames(a, b string, names []string, fa, fb map[string]bool) ([]PathDiff, error) {
	diffs := make([]*FileDiff, len(names))
	errs := make([]error, len(names))
	one := func(i int) {
		n := names[i]
		var da, db []byte
		var err error
		if fa[n] {
			if da, err = readFile(filepath.Join(a, n)); err != nil {
				errs[i] = err
				return
			}
		}
		if fb[n] {
			if db, err = readFile(filepath.Join(b, n)); err != nil {
				errs[i] = err
				return
			}
		}
		diffs[i] = diffOperands(filepath.Base(n), da, db)
	}
	var (
		wg   sync.WaitGroup
		next atomic.Int64
	)
	for range min(diffWorkers, len(names)) {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < len(names); i = int(next.Add(1)) - 1 {
				one(i)
			}
		})
	}
	wg.Wait()
	var out []PathDiff
	for i, n := range names {
		if errs[i] != nil {
			return nil, errs[i]
		}
		if diffs[i] != nil {
			out = append(out, PathDiff{Path: filepath.ToSlash(n), Diff: diffs[i]})
		}
	}
	return out, nil
}

// diffWorkers bounds the files diff reads and compares at once.
var diffWorkers = max(4, 2*runtime.GOMAXPROCS(0))

// readFile reads one file diff compares and checks that it is JSON, or JSON
// Lines for a *.jsonl file, naming it when it is not.
func readFile(path string) ([]byte, error) {
	data, err := safeio.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("diff: %w", err)
	}
	if strings.HasSuffix(path, ".jsonl") {
		if _, err := jsonLinesArray(data); err != nil {
			return nil, fmt.Errorf("diff: %s is not JSON Lines: %v", path, err)
		}
		return data, nil
	}
	if _, err := parseLoose(data); err != nil {
		return nil, fmt.Errorf("diff: %s is not JSON: %v", path, err)
	}
	return data, nil
}

// diffOperands is DiffFile, with JSON Lines compared as the array of their
// lines.
func diffOperands(name string, a, b []byte) *FileDiff {
	if strings.HasSuffix(name, ".jsonl") && a != nil && b != nil && !bytes.Equal(a, b) {
		la, errA := jsonLinesArray(a)
		lb, errB := jsonLinesArray(b)
		if errA == nil && errB == nil {
			d := DiffFile(name, la, lb)
			if d != nil {
				d.Invisible = invisibleDifferences(a, b)
			}
			if d == nil {
				d = &FileDiff{File: name, State: "changed", Invisible: invisibleDifferences(a, b)}
			}
			return d
		}
	}
	return DiffFile(name, a, b)
}

// jsonLinesArray checks that every non-blank line of data is one JSON
// value and returns them as a JSON array, one element a line.
func jsonLinesArray(data []byte) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('[')
	n := 0
	for i, line := range bytes.Split(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if err := checkJSON(line); err != nil {
			return nil, fmt.Errorf("line %d: %v", i+1, err)
		}
		if n > 0 {
			buf.WriteByte(',')
		}
		buf.Write(line)
		n++
	}
	buf.WriteByte(']')
	return buf.Bytes(), nil
}

// artifactFiles lists the artifact files below root, relative to it.
func artifactFiles(root string, all bool) (map[string]bool, error) {
	out := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		name := d.Name()
		if strings.HasPrefix(name, ".") {
			return nil
		}
		timestamped := name == runner.RunFile || strings.HasSuffix(name, ".jsonl")
		if !strings.HasSuffix(name, ".json") && !strings.HasSuffix(name, ".jsonl") || timestamped && !all {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		out[rel] = true
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("diff: %w", err)
	}
	return out, nil
}
