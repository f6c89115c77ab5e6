package mutate

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-oracle/oracle/env"
)

// HostTarget is an environment a host loads (a Python or a TypeScript
// module): each mutant is checked in a copy of the project's parts the
// check reads (the environment's folders, its baselines and traces, its
// declared agents' files) with the mutated file written there, by this
// binary.
type HostTarget struct {
	project string
	lang    string
	self    []string
	files   []string
	// copies are the project-relative paths (slash-separated) of the
	// folders and files a check of the environment reads
	copies []string
	// mutants lists the edits of one file, in the language's own parser
	mutants func(ctx context.Context, file string, src []byte) ([]edit, error)
}

//go:embed python/mutants.py
var pythonMutants string

// NewHostTarget is the environment of the manifest m, a module, in the
// project; self is the command that runs this binary (its path and the
// arguments before a command), which checks the mutants.
func NewHostTarget(project string, m env.Manifest, self []string) (*HostTarget, error) {
	if len(self) == 0 {
		return nil, fmt.Errorf("mutate: no command runs this binary")
	}
	t := &HostTarget{project: project, lang: env.EntrypointLang(m.Entrypoint), self: self}
	folders := m.Folders(project)
	exts := map[string][]string{env.LangPython: {".py"}, env.LangNode: {".ts", ".mts", ".js", ".mjs", ".cts", ".cjs"}}[t.lang]
	switch t.lang {
	case env.LangPython:
		if _, err := exec.LookPath("python3"); err != nil {
			return nil, fmt.Errorf("no_python: mutants of a Python environment are made with python3's ast, and python3 is not on PATH; install Python 3.9 or newer")
		}
		t.mutants = pythonEdits
	case env.LangNode:
		mut, err := typescriptMutator(folders[len(folders)-1])
		if err != nil {
			return nil, err
		}
		t.mutants = mut
	default:
		return nil, fmt.Errorf("mutate knows no host for %s", m.Entrypoint)
	}
	rel := func(p string) (string, bool) {
		r, err := filepath.Rel(project, p)
		if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return "", false
		}
		return filepath.ToSlash(r), true
	}
	for _, dir := range folders {
		r, ok := rel(dir)
		if !ok {
			return nil, fmt.Errorf("the environment's folder %s is outside the project; run mutate in the project that holds it", dir)
		}
		t.copies = append(t.copies, r)
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if p != dir && skippedDir(d.Name()) {
					return filepath.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() || !slices.Contains(exts, strings.ToLower(filepath.Ext(p))) {
				return nil
			}
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if r, ok := rel(p); ok && !skippedFile(p, src) && !slices.Contains(t.files, r) {
				t.files = append(t.files, r)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	for _, p := range []string{filepath.Join(".silo", "baselines", m.Name), filepath.Join(".silo", "traces", m.Name)} {
		if _, err := os.Lstat(filepath.Join(project, p)); err == nil {
			t.copies = append(t.copies, filepath.ToSlash(p))
		}
	}
	for _, ref := range m.DeclaredAgents(project) {
		for _, scheme := range []string{"module:", "python:", "replay:"} {
			if p, ok := strings.CutPrefix(ref, scheme); ok {
				if r, ok := rel(p); ok {
					t.copies = append(t.copies, r)
				}
			}
		}
	}
	slices.Sort(t.files)
	return t, nil
}

// skippedDir are folders of an environment that hold no code of its own.
func skippedDir(name string) bool {
	switch name {
	case "tasks", "data", "candidates", "node_modules", "__pycache__", "tests", "test":
		return true
	}
	return strings.HasPrefix(name, ".")
}

// Language is python or typescript.
func (t *HostTarget) Language() string {
	if t.lang == env.LangNode {
		return "typescript"
	}
	return t.lang
}

// Files are the environment's module files but its verifiers', solvers'
// and agents'.
func (t *HostTarget) Files() []string { return t.files }

// Mutants lists the edits the language's parser finds.
func (t *HostTarget) Mutants(file string, src []byte) ([]Mutant, error) {
	edits, err := t.mutants(context.Background(), file, src)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	var out []Mutant
	seen := map[string]bool{}
	for _, e := range edits {
		if e.start < 0 || e.start > e.end || e.end > len(src) {
			return nil, fmt.Errorf("%s: the mutator gave an edit outside the file", file)
		}
		m := newMutant(file, src, e)
		if !seen[m.ID] {
			seen[m.ID] = true
			out = append(out, m)
		}
	}
	sortMutants(out)
	return out, nil
}

// Base is a copy of the project's parts the check reads.
func (t *HostTarget) Base(ctx context.Context, tmp string) (Checker, bool, error) {
	dir := filepath.Join(tmp, "project")
	if err := t.copyProject(dir); err != nil {
		return Checker{}, false, err
	}
	return Checker{Bin: t.self[0], Args: t.self[1:], Dir: dir}, false, nil
}

// Coverage is not known for a host.
func (t *HostTarget) Coverage(context.Context, Checker, Case, string) (Coverage, error) {
	return nil, nil
}

// Mutant is a copy of the project's parts with the mutated file.
func (t *HostTarget) Mutant(ctx context.Context, m Mutant, src []byte, tmp string) (Checker, error) {
	dir := filepath.Join(tmp, "project")
	if err := t.copyProject(dir); err != nil {
		return Checker{}, err
	}
	if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(m.File)), src, 0o600); err != nil {
		return Checker{}, err
	}
	return Checker{Bin: t.self[0], Args: t.self[1:], Dir: dir}, nil
}

// copyProject copies the parts of the project a check reads to dir: only
// folders and regular files; a symlink or any other file is refused.
func (t *HostTarget) copyProject(dir string) error {
	for _, c := range t.copies {
		from := filepath.Join(t.project, filepath.FromSlash(c))
		err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			r, err := filepath.Rel(t.project, p)
			if err != nil {
				return err
			}
			to := filepath.Join(dir, r)
			switch {
			case d.IsDir():
				if p != from && (d.Name() == "node_modules" || d.Name() == "__pycache__" || d.Name() == ".git") {
					return filepath.SkipDir
				}
				return os.MkdirAll(to, 0o700)
			case !d.Type().IsRegular():
				return fmt.Errorf("mutate copies the environment to check its mutants, and %s is not a regular file; remove it or make it one", filepath.ToSlash(r))
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if err := os.MkdirAll(filepath.Dir(to), 0o700); err != nil {
				return err
			}
			return os.WriteFile(to, data, 0o600)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// pythonEdits runs the mutator of python/mutants.py on src.
func pythonEdits(ctx context.Context, _ string, src []byte) ([]edit, error) {
	return runMutator(ctx, src, "python3", "-I", "-c", pythonMutants)
}

// runMutator runs a mutator program that reads a file's text on stdin
// and writes its edits as JSON.
func runMutator(ctx context.Context, src []byte, name string, args ...string) ([]edit, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdin = bytes.NewReader(src)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	killGroup(cmd)
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("the mutator (%s) failed: %s", name, firstLine(stderr.String()+" "+err.Error()))
	}
	var raw []struct {
		Op         string `json:"op"`
		Start, End int
		Repl       string `json:"repl"`
	}
	if err := json.Unmarshal(out, &raw); err != nil {
		return nil, fmt.Errorf("the mutator (%s) printed no list of edits: %v", name, err)
	}
	edits := make([]edit, len(raw))
	for i, r := range raw {
		edits[i] = edit{op: r.Op, start: r.Start, end: r.End, repl: r.Repl}
	}
	return edits, nil
}
