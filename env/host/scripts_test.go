package host

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The hosts run from the user's cache only while what they execute there
// is the user's alone: a file planted beside the scripts, a folder others
// may write, a script others may write or a link make them run from a
// fresh temporary folder instead.
func TestScriptsRunOnlyFromAPrivateCache(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", cache)
	dir, cached, err := install()
	if err != nil || !cached || !strings.HasPrefix(dir, cache) {
		t.Fatalf("install: %s %v %v", dir, cached, err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "cache"), 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "cache", "cjs-x.json"), []byte("{}"), 0o600) // the hosts' own records
	if again, cached, err := install(); err != nil || !cached || again != dir {
		t.Fatalf("install again: %s %v %v", again, cached, err)
	}
	plant := func(name string, undo func()) {
		t.Helper()
		got, cached, err := install()
		if err != nil || cached || strings.HasPrefix(got, cache) {
			t.Errorf("%s: ran from %s (cached %v, %v), want a fresh temporary folder", name, got, cached, err)
		}
		os.RemoveAll(got)
		undo()
	}
	planted := filepath.Join(dir, "python", "json.py")
	os.WriteFile(planted, []byte("import os\n"), 0o600)
	plant("a planted json.py", func() { os.Remove(planted) })
	os.Chmod(filepath.Join(dir, "python"), 0o777)
	plant("a folder others may write", func() { os.Chmod(filepath.Join(dir, "python"), 0o700) })
	os.Chmod(filepath.Join(dir, "python", "host.py"), 0o666)
	plant("a script others may write", func() { os.Chmod(filepath.Join(dir, "python", "host.py"), 0o600) })
	os.Chmod(filepath.Join(cache, "oracle"), 0o777)
	plant("a cache folder others may write", func() { os.Chmod(filepath.Join(cache, "oracle"), 0o700) })
	node := filepath.Join(dir, "node")
	os.Rename(node, node+".real")
	os.Symlink(node+".real", node)
	plant("a link", func() { os.Remove(node); os.Rename(node+".real", node) })
	if _, cached, err := install(); err != nil || !cached {
		t.Errorf("after the undos: cached %v, %v", cached, err)
	}
}

// tsx is looked up from the environment's folder up to the project's
// folder, never above it: a tsx in a shared parent folder is not taken.
func TestTSXLookupStopsAtTheProject(t *testing.T) {
	t.Setenv("ORACLE_TSX", "")
	parent := t.TempDir()
	pkg := filepath.Join(parent, "node_modules", "tsx")
	os.MkdirAll(filepath.Join(pkg, "dist", "esm", "api"), 0o700)
	os.WriteFile(filepath.Join(pkg, "package.json"), []byte(`{"name":"tsx"}`), 0o600)
	os.WriteFile(filepath.Join(pkg, "dist", "esm", "api", "index.mjs"), nil, 0o600)
	project := filepath.Join(parent, "proj")
	folder := filepath.Join(project, ".silo", "environments", "shop")
	os.MkdirAll(folder, 0o700)
	if api, err := findTSX(folder, project); err == nil {
		t.Errorf("found %s above the project", api)
	}
	if _, err := findTSX(folder, parent); err != nil {
		t.Errorf("inside the root: %v", err)
	}
}
