package mutate

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"path"
	"slices"
	"strings"
)

// Operators, as reports and ids name them.
const (
	OpBoundary   = "boundary"    // < ↔ <=, > ↔ >=
	OpNegate     = "negate"      // a condition negated, == ↔ !=
	OpArithmetic = "arithmetic"  // + ↔ -, * ↔ /
	OpLogical    = "logical"     // && ↔ ||
	OpConstant   = "constant"    // an integer constant off by one
	OpReturnZero = "return-zero" // a returned value replaced by its zero
	OpNoWrite    = "no-write"    // a statement that writes state removed
	OpSortOrder  = "sort-order"  // a sort comparator reversed
	OpEmptyText  = "empty-string"
)

// Mutant is one edit of one source file of an environment.
type Mutant struct {
	// ID is stable while the file's text around the edit does not move:
	// file:line:column:operator:digest.
	ID string
	// File is the edited file, slash-separated, relative to the project
	// root.
	File     string
	Line     int
	Column   int
	Operator string
	// Original and Replacement are the edited text before and after.
	Original, Replacement string
	// Start and End are the byte offsets of Original in the file.
	Start, End int
}

// edit is a mutant before its id: a span of a file and its replacement.
type edit struct {
	op         string
	start, end int
	repl       string
}

// newMutant makes the mutant of e on the file at rel whose text is src.
func newMutant(rel string, src []byte, e edit) Mutant {
	line := 1 + strings.Count(string(src[:e.start]), "\n")
	col := e.start - strings.LastIndexByte(string(src[:e.start]), '\n')
	orig := string(src[e.start:e.end])
	lineStart := strings.LastIndexByte(string(src[:e.start]), '\n') + 1
	lineEnd := len(src)
	if i := strings.IndexByte(string(src[e.end:]), '\n'); i >= 0 {
		lineEnd = e.end + i
	}
	h := sha256.New()
	for _, s := range []string{rel, e.op, orig, e.repl, strings.TrimSpace(string(src[lineStart:lineEnd]))} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	digest := hex.EncodeToString(h.Sum(nil))[:8]
	return Mutant{
		ID:   fmt.Sprintf("%s:%d:%d:%s:%s", rel, line, col, e.op, digest),
		File: rel, Line: line, Column: col, Operator: e.op,
		Original: orig, Replacement: e.repl, Start: e.start, End: e.end,
	}
}

// Apply returns src with the mutant's edit made.
func (m Mutant) Apply(src []byte) ([]byte, error) {
	if m.End > len(src) || m.Start > m.End || string(src[m.Start:m.End]) != m.Original {
		return nil, fmt.Errorf("%s changed since its mutants were made; run mutate again", m.File)
	}
	out := make([]byte, 0, len(src)+len(m.Replacement))
	out = append(out, src[:m.Start]...)
	out = append(out, m.Replacement...)
	return append(out, src[m.End:]...), nil
}

// Change says in one line what the mutant changed.
func (m Mutant) Change() string {
	o, r := oneLine(m.Original), oneLine(m.Replacement)
	if r == "" {
		return fmt.Sprintf("removed `%s`", o)
	}
	return fmt.Sprintf("`%s` → `%s`", o, r)
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}

// sortMutants orders mutants by file, position and operator.
func sortMutants(ms []Mutant) {
	slices.SortFunc(ms, func(a, b Mutant) int {
		return cmp.Or(strings.Compare(a.File, b.File), cmp.Compare(a.Start, b.Start),
			cmp.Compare(a.End, b.End), strings.Compare(a.Operator, b.Operator), strings.Compare(a.ID, b.ID))
	})
}

// Sample returns at most max of the mutants (all of them when max is 0),
// the same ones for the same seed and mutants, in their order.
func Sample(ms []Mutant, max int, seed uint64) []Mutant {
	if max <= 0 || len(ms) <= max {
		return ms
	}
	idx := rand.New(rand.NewPCG(seed, seed^0x6d757461)).Perm(len(ms))[:max]
	slices.Sort(idx)
	out := make([]Mutant, 0, max)
	for _, i := range idx {
		out = append(out, ms[i])
	}
	return out
}

// Lines are changed lines of files: file (slash, project-relative) →
// line numbers.
type Lines map[string]map[int]bool

// Only keeps the mutants whose edit starts on one of the lines.
func (l Lines) Only(ms []Mutant) []Mutant {
	var out []Mutant
	for _, m := range ms {
		if l[m.File][m.Line] {
			out = append(out, m)
		}
	}
	return out
}

// skippedFile reports whether a file of an environment is one of its
// tests rather than its code: its verifiers, solvers, agents, mutants and
// test files, by name, or a file that says so with a line
// "oracle:mutate-skip" in a comment.
func skippedFile(name string, src []byte) bool {
	base := strings.ToLower(path.Base(name))
	stem := strings.TrimSuffix(base, path.Ext(base))
	if strings.HasSuffix(stem, "_test") || strings.HasPrefix(stem, "test_") || strings.HasSuffix(stem, ".test") ||
		strings.HasSuffix(stem, ".spec") || strings.HasSuffix(stem, ".d") || strings.Contains(stem, ".agent") {
		return true
	}
	for _, p := range []string{"verifier", "solver", "agent", "mutant"} {
		if strings.HasPrefix(stem, p) {
			return true
		}
	}
	return strings.Contains(string(src), "oracle:mutate-skip")
}
