package mutate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
)

// GoTarget is an environment written in Go: the package in a folder of
// the project, built into the binary whose main package is Main, in the
// module that holds the package, with the go command on PATH.
type GoTarget struct {
	project    string // the project root, absolute
	pkgDir     string // the package's folder, absolute
	relDir     string // the package's folder, slash-separated, relative to the project
	importPath string
	modDir     string
	main       string
	files      []string
	// profile maps the file names of a coverage profile to Files
	profile map[string]string
}

// NewGoTarget finds the Go package in the folder pkgDir of the project
// and the module that holds it; main is the import path of the main
// package of the binary that serves the environment.
func NewGoTarget(ctx context.Context, project, pkgDir, main string) (*GoTarget, error) {
	if _, err := exec.LookPath("go"); err != nil {
		return nil, fmt.Errorf("no_go: mutants of a Go environment are built with the go command, which is not on PATH; install Go (go.dev/dl) or put it on PATH")
	}
	if main == "" {
		return nil, fmt.Errorf("no_main: this binary does not say which main package it was built from; give it with --main (the import path of your oracle binary's package main)")
	}
	rel, err := filepath.Rel(project, pkgDir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, fmt.Errorf("the environment's package %s is outside the project %s; run mutate in the project that holds it", pkgDir, project)
	}
	out, err := goCmd(ctx, pkgDir, "list", "-json=ImportPath,Module,GoFiles", ".")
	if err != nil {
		return nil, fmt.Errorf("no_go_module: %s: %v; mutate rebuilds the environment in its own module, so run it in a checkout where go build works", filepath.ToSlash(rel), err)
	}
	var info struct {
		ImportPath string
		Module     *struct{ Dir string }
		GoFiles    []string
	}
	if err := json.Unmarshal(out, &info); err != nil {
		return nil, fmt.Errorf("go list %s: %w", rel, err)
	}
	if info.Module == nil || info.Module.Dir == "" {
		return nil, fmt.Errorf("no_go_module: %s is in no Go module; mutate rebuilds the environment in its module: add a go.mod or run mutate in the module's checkout", filepath.ToSlash(rel))
	}
	t := &GoTarget{project: project, pkgDir: pkgDir, relDir: filepath.ToSlash(rel), importPath: info.ImportPath,
		modDir: info.Module.Dir, main: main, profile: map[string]string{}}
	for _, f := range info.GoFiles {
		src, err := os.ReadFile(filepath.Join(pkgDir, f))
		if err != nil {
			return nil, err
		}
		if skippedFile(f, src) {
			continue
		}
		name := path.Join(t.relDir, f)
		t.files = append(t.files, name)
		t.profile[info.ImportPath+"/"+f] = name
	}
	return t, nil
}

// Language is go.
func (t *GoTarget) Language() string { return "go" }

// Files are the package's Go files but its verifiers, solvers, agents and
// mutants.
func (t *GoTarget) Files() []string { return t.files }

// Mutants are GoMutants.
func (t *GoTarget) Mutants(file string, src []byte) ([]Mutant, error) { return GoMutants(file, src) }

// Base builds the binary with coverage of the environment's package (and
// of the main package, without which the binary writes no coverage).
func (t *GoTarget) Base(ctx context.Context, tmp string) (Checker, bool, error) {
	bin := filepath.Join(tmp, "oracle")
	if _, err := goCmd(ctx, t.modDir, "build", "-cover", "-covermode=set", "-coverpkg="+t.importPath+","+t.main, "-o", bin, t.main); err != nil {
		return Checker{}, false, fmt.Errorf("build %s: %v", t.main, err)
	}
	return Checker{Bin: bin, Dir: t.project}, true, nil
}

// Coverage runs the case with the coverage binary and reads what it ran.
func (t *GoTarget) Coverage(ctx context.Context, base Checker, c Case, tmp string) (Coverage, error) {
	dir := filepath.Join(tmp, "cov")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	base.Env = append(base.Env, "GOCOVERDIR="+dir)
	if _, err := base.run(ctx, 0, caseArgs(c.Env, []Case{c})...); err != nil {
		return nil, err
	}
	profile := filepath.Join(tmp, "cover.txt")
	if _, err := goCmd(ctx, t.modDir, "tool", "covdata", "textfmt", "-i="+dir, "-o="+profile); err != nil {
		return nil, fmt.Errorf("read coverage of %s: %v", c.Key, err)
	}
	data, err := os.ReadFile(profile)
	if err != nil {
		return nil, err
	}
	return parseGoProfile(data, t.profile)
}

// Mutant builds the binary with the mutated file in an overlay: the
// project's file is never written.
func (t *GoTarget) Mutant(ctx context.Context, m Mutant, src []byte, tmp string) (Checker, error) {
	mutated, err := writeOverlay(tmp, m.File, src)
	if err != nil {
		return Checker{}, err
	}
	overlay, err := json.Marshal(map[string]map[string]string{"Replace": {filepath.Join(t.project, filepath.FromSlash(m.File)): mutated}})
	if err != nil {
		return Checker{}, err
	}
	ov := filepath.Join(tmp, "overlay.json")
	if err := os.WriteFile(ov, overlay, 0o600); err != nil {
		return Checker{}, err
	}
	bin := filepath.Join(tmp, "oracle")
	if _, err := goCmd(ctx, t.modDir, "build", "-overlay", ov, "-o", bin, t.main); err != nil {
		return Checker{}, fmt.Errorf("does not build: %v", err)
	}
	return Checker{Bin: bin, Dir: t.project}, nil
}

// goCmd runs the go command in dir and returns its output; an error holds
// the first lines go printed.
func goCmd(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	killGroup(cmd)
	out, err := cmd.Output()
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		msg := strings.TrimSpace(stderr.String())
		if lines := strings.Split(msg, "\n"); len(lines) > 3 {
			msg = strings.Join(lines[:3], "; ")
		}
		if msg == "" {
			msg = err.Error()
		}
		return nil, errors.New(strings.ReplaceAll(msg, "\n", "; "))
	}
	return out, nil
}
