package oracle

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
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
// added or removed.
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
		if d := DiffFile(filepath.Base(b), da, db); d != nil {
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
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	var out []PathDiff
	for _, n := range sorted {
		var da, db []byte
		if fa[n] {
			if da, err = readFile(filepath.Join(a, n)); err != nil {
				return nil, err
			}
		}
		if fb[n] {
			if db, err = readFile(filepath.Join(b, n)); err != nil {
				return nil, err
			}
		}
		if d := DiffFile(filepath.Base(n), da, db); d != nil {
			out = append(out, PathDiff{Path: filepath.ToSlash(n), Diff: d})
		}
	}
	return out, nil
}

// MaxArtifactBytes bounds an artifact file that diff reads.
const MaxArtifactBytes = 256 << 20

func readFile(path string) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("diff: %w", err)
	}
	if info.Size() > MaxArtifactBytes {
		return nil, fmt.Errorf("diff: %s is %d bytes, over the limit of %d for an artifact", path, info.Size(), MaxArtifactBytes)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("diff: %w", err)
	}
	return data, nil
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
		timestamped := name == "run.json" || strings.HasSuffix(name, ".jsonl")
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
