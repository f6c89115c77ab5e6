package mutate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Target is one environment's code in one language: its files, its
// mutants, and how oracle check runs it unmutated and mutated.
type Target interface {
	// Language names the language: go, python, typescript.
	Language() string
	// Files are the files mutate edits, slash-separated, relative to the
	// project root.
	Files() []string
	// Mutants lists the mutants of one of Files, whose text is src.
	Mutants(file string, src []byte) ([]Mutant, error)
	// Base prepares the checker of the unmutated environment in the
	// temporary folder tmp. With coverage true, Coverage can say which
	// lines a case executes.
	Base(ctx context.Context, tmp string) (base Checker, coverage bool, err error)
	// Coverage runs the one case c with base and returns the lines it
	// executed; tmp is a temporary folder of its own.
	Coverage(ctx context.Context, base Checker, c Case, tmp string) (Coverage, error)
	// Mutant prepares the checker that sees the mutant m, whose file's
	// mutated text is src, in the temporary folder tmp.
	Mutant(ctx context.Context, m Mutant, src []byte, tmp string) (Checker, error)
}

// Coverage is what one case executed: blocks of files by project-relative
// path.
type Coverage map[string][]Block

// Block is a span of a file (line.column to line.column) and whether it
// ran.
type Block struct {
	StartLine, StartCol, EndLine, EndCol int
	Ran                                  bool
}

// Covers says whether the position ran (covered) and whether the coverage
// knows the position at all (a line outside every block, such as a
// package-level declaration, is unknown).
func (c Coverage) Covers(file string, line, col int) (covered, known bool) {
	for _, b := range c[file] {
		after := line > b.StartLine || line == b.StartLine && col >= b.StartCol
		before := line < b.EndLine || line == b.EndLine && col <= b.EndCol
		if after && before {
			known = true
			if b.Ran {
				return true, true
			}
		}
	}
	return false, known
}

// parseGoProfile reads a coverage profile in the text format of go tool
// covdata textfmt; files maps a profile's file names (import path/base)
// to project-relative paths, and files it does not name are left out.
func parseGoProfile(data []byte, files map[string]string) (Coverage, error) {
	cov := Coverage{}
	for i, line := range strings.Split(string(data), "\n") {
		if i == 0 || strings.TrimSpace(line) == "" {
			continue // mode: set
		}
		name, rest, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("coverage profile line %d: %q", i+1, line)
		}
		rel, ok := files[name]
		if !ok {
			continue
		}
		var b Block
		var stmts, count int
		if _, err := fmt.Sscanf(rest, "%d.%d,%d.%d %d %d", &b.StartLine, &b.StartCol, &b.EndLine, &b.EndCol, &stmts, &count); err != nil {
			return nil, fmt.Errorf("coverage profile line %d: %v", i+1, err)
		}
		b.Ran = count > 0
		cov[rel] = append(cov[rel], b)
	}
	return cov, nil
}

// writeOverlay writes src as the mutated file of a build overlay in tmp and
// returns its path.
func writeOverlay(tmp, name string, src []byte) (string, error) {
	p := filepath.Join(tmp, filepath.Base(name))
	return p, os.WriteFile(p, src, 0o600)
}

// quoteList quotes names for a message.
func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}
