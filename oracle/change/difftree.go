package change

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

	"github.com/agent-oracle/oracle/internal/artifact"
	"github.com/agent-oracle/oracle/internal/safeio"
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
// added or removed. A run folder compared with a case folder (a baseline
// agent folder, .silo/baselines/ENV/AGENT, or a report folder's
// fresh/ENV/AGENT), in either order, is compared with the case it is a run
// of: see runCasePairs. JSON Lines files (*.jsonl) are compared line by line:
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
	pairs, err := runCasePairs(a, b, all)
	if err != nil || pairs != nil {
		if err != nil {
			return nil, err
		}
		return diffPairs(pairs)
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
	sorted := slices.Sorted(maps.Keys(names))
	pairs = make([]filePair, len(sorted))
	for i, n := range sorted {
		pairs[i].name = n
		if fa[n] {
			pairs[i].a = filepath.Join(a, n)
		}
		if fb[n] {
			pairs[i].b = filepath.Join(b, n)
		}
	}
	return diffPairs(pairs)
}

// filePair is one file a comparison of two folders shows: its name in the
// report and its path on each side ("" when that side lacks it).
type filePair struct {
	name, a, b string
}

// diffPairs reads and compares the files of two folders, pair by pair, with
// a bounded number of workers (stat and read wait on the disk, not the CPU).
// The result is in the order of pairs, and the error is that of the first
// pair in that order that has one, as a reading one file at a time gives.
func diffPairs(pairs []filePair) ([]PathDiff, error) {
	diffs := make([]*FileDiff, len(pairs))
	errs := make([]error, len(pairs))
	one := func(i int) {
		p := pairs[i]
		var da, db []byte
		var err error
		if p.a != "" {
			if da, err = readFile(p.a); err != nil {
				errs[i] = err
				return
			}
		}
		if p.b != "" {
			if db, err = readFile(p.b); err != nil {
				errs[i] = err
				return
			}
		}
		diffs[i] = diffOperands(filepath.Base(p.name), da, db)
	}
	var (
		wg   sync.WaitGroup
		next atomic.Int64
	)
	for range min(diffWorkers, len(pairs)) {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < len(pairs); i = int(next.Add(1)) - 1 {
				one(i)
			}
		})
	}
	wg.Wait()
	var out []PathDiff
	for i, p := range pairs {
		if errs[i] != nil {
			return nil, errs[i]
		}
		if diffs[i] != nil {
			out = append(out, PathDiff{Path: filepath.ToSlash(p.name), Diff: diffs[i]})
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
		a, known := artifact.Of(name)
		timestamped := known && !a.Frozen || strings.HasSuffix(name, ".jsonl")
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
