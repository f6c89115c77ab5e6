package host

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestBwrapBindsAVirtualenvsInterpreter: a host run by a virtualenv's
// python (a link to the interpreter the virtualenv was made from) sees both
// the virtualenv and that interpreter's folder, wherever they lie hidden.
func TestBwrapBindsAVirtualenvsInterpreter(t *testing.T) {
	tmp, err := filepath.EvalSymlinks(t.TempDir()) // under /tmp: hidden in the sandbox
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(tmp, "pyenv", "versions", "3.11", "bin")
	venv := filepath.Join(tmp, "project-venv", "bin")
	for _, d := range []string{base, venv, filepath.Join(tmp, "project"), filepath.Join(tmp, "own")} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(filepath.Join(base, "python3.11"), []byte("#!/bin/true\n"), 0o755)
	if err := os.Symlink(filepath.Join(base, "python3.11"), filepath.Join(venv, "python3")); err != nil {
		t.Fatal(err)
	}
	args := bwrapArgs("bwrap", Sandbox{Mode: SandboxBwrap}, filepath.Join(tmp, "project"), filepath.Join(tmp, "own"), []string{filepath.Join(venv, "python3"), "host.py"})
	var bound []string
	for i, a := range args {
		if a == "--ro-bind" && i+2 < len(args) {
			bound = append(bound, args[i+1])
		}
	}
	for _, want := range []string{filepath.Join(tmp, "project-venv"), filepath.Join(tmp, "pyenv", "versions", "3.11"), filepath.Join(tmp, "project")} {
		if !slices.Contains(bound, want) {
			t.Errorf("%s is not bound read-only; bound: %v", want, bound)
		}
	}
}
