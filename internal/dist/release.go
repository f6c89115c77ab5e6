package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// Release is what Write makes.
type Release struct {
	Root    string   // the module's folder
	Version string   // stamped into the binaries and the packages
	Targets []Target // the platforms
	Log     io.Writer
}

// Write makes the release in out, whole: built in a temporary folder beside
// it and renamed into place, so that a failed or interrupted release leaves
// out as it was. It returns the files written, relative to out.
func (r Release) Write(out string) ([]string, error) {
	pyVersion, err := pythonVersion(r.Version)
	if err != nil {
		return nil, err
	}
	if len(r.Targets) == 0 {
		return nil, errors.New("usage: no target to build")
	}
	abs, err := filepath.Abs(out)
	if err != nil {
		return nil, err
	}
	if err := replaceable(abs); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(abs), ".dist-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	if err := os.Chmod(tmp, 0o755); err != nil {
		return nil, err
	}
	for _, t := range r.Targets {
		fmt.Fprintf(r.logger(), "building %s\n", t)
		if err := r.build(t, filepath.Join(tmp, "bin", t.BinaryName())); err != nil {
			return nil, err
		}
	}
	if err := writeNPM(filepath.Join(tmp, "npm"), filepath.Join(tmp, "bin"), r.Version, r.Targets); err != nil {
		return nil, fmt.Errorf("npm packages: %w", err)
	}
	for _, t := range r.Targets {
		if _, err := writeWheel(filepath.Join(tmp, "wheels"), filepath.Join(tmp, "bin", t.BinaryName()), pyVersion, t); err != nil {
			return nil, fmt.Errorf("wheel for %s: %w", t, err)
		}
	}
	files, err := writeChecksums(tmp)
	if err != nil {
		return nil, err
	}
	return files, swapIn(tmp, abs)
}

func (r Release) logger() io.Writer {
	if r.Log == nil {
		return io.Discard
	}
	return r.Log
}

// build cross-compiles cmd/oracle for t into path, reproducibly: the same
// source and toolchain give the same bytes on any machine and in any
// folder.
func (r Release) build(t Target, path string) error {
	cmd := exec.Command("go", "build", "-trimpath", "-buildvcs=false",
		"-ldflags", "-s -w -buildid= -X "+versionVar+"="+r.Version,
		"-o", path, "./cmd/oracle")
	cmd.Dir = r.Root
	cmd.Env = append(withoutGoFlags(os.Environ()), "CGO_ENABLED=0", "GOOS="+t.GOOS, "GOARCH="+t.GOARCH, "GOFLAGS=")
	cmd.Stdout, cmd.Stderr = r.logger(), r.logger()
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("build %s: %w", t, err)
	}
	return nil
}

// withoutGoFlags drops the variables that would change what go build makes
// for a target (the caller's own GOOS, GOARCH, CGO_ENABLED and GOFLAGS).
func withoutGoFlags(environ []string) []string {
	return slices.DeleteFunc(slices.Clone(environ), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "GOOS", "GOARCH", "CGO_ENABLED", "GOFLAGS", "GOAMD64", "GOARM64", "GOEXPERIMENT":
			return true
		}
		return false
	})
}

// checksumsFile is the release's list of sha256 sums.
const checksumsFile = "SHA256SUMS"

// writeChecksums writes SHA256SUMS over every file of dir, sorted, in
// sha256sum's format, and returns the files' names.
func writeChecksums(dir string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		files = append(files, filepath.ToSlash(rel))
		return err
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(files)
	var sums strings.Builder
	for _, name := range files {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(&sums, "%s  %s\n", hex.EncodeToString(sum[:]), name)
	}
	if err := os.WriteFile(filepath.Join(dir, checksumsFile), []byte(sums.String()), 0o644); err != nil {
		return nil, err
	}
	return append(files, checksumsFile), nil
}

// replaceable says whether a release may be written to path: nothing there,
// an empty folder or an earlier release.
func replaceable(path string) error {
	info, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !info.IsDir() {
		return fmt.Errorf("exists: %s is not a folder (it is a %s); remove it or choose another -out", path, kindOf(info.Mode()))
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return err
	}
	if len(entries) == 0 {
		return nil
	}
	if sums, err := os.Lstat(filepath.Join(path, checksumsFile)); err == nil && sums.Mode().IsRegular() {
		return nil
	}
	return fmt.Errorf("exists: %s holds files and no %s, so it is not an earlier release; remove it or choose another -out", path, checksumsFile)
}

func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "symlink"
	case m&fs.ModeNamedPipe != 0:
		return "FIFO"
	case m&fs.ModeDevice != 0:
		return "device"
	case m.IsRegular():
		return "file"
	}
	return "special file"
}

// swapIn puts the finished release tmp at out, moving an earlier release
// aside first and removing it after.
func swapIn(tmp, out string) error {
	old := ""
	if _, err := os.Lstat(out); err == nil {
		old = tmp + ".old"
		if err := os.Rename(out, old); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp, out); err != nil {
		if old != "" {
			_ = os.Rename(old, out)
		}
		return err
	}
	if old != "" {
		return os.RemoveAll(old)
	}
	return nil
}
