package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// The install tests build the release of this machine's platform once, as
// a user gets it, and install it the way each world installs packages.
var hostRelease = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "oracle-dist-test-")
	if err != nil {
		return "", err
	}
	t, ok := findTarget(runtime.GOOS + "/" + runtime.GOARCH)
	if !ok {
		return "", fs.ErrNotExist
	}
	out := filepath.Join(dir, "dist")
	_, err = Release{Root: filepath.Join("..", ".."), Version: testVersion, Targets: []Target{t}}.Write(out)
	return out, err
})

// testVersion is stamped into the test's release: not the source's, so
// that `oracle version` shows the stamp took.
const testVersion = "9.8.7"

func TestMain(m *testing.M) {
	code := m.Run()
	if dir, err := hostRelease(); err == nil {
		os.RemoveAll(filepath.Dir(dir))
	}
	os.Exit(code)
}

func release(t *testing.T) (string, Target) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds oracle: skipped under -short")
	}
	tg, ok := findTarget(runtime.GOOS + "/" + runtime.GOARCH)
	if !ok || runtime.GOOS == "windows" {
		t.Skipf("the install tests run on linux and darwin, not %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	dir, err := hostRelease()
	if err != nil {
		t.Fatal(err)
	}
	return dir, tg
}

// noGoPath is a PATH of the system's folders that holds no go, with the
// folders given first, as on a machine where Go was never installed.
func noGoPath(t *testing.T, first ...string) string {
	t.Helper()
	path := strings.Join(append(first, "/usr/bin", "/bin"), string(os.PathListSeparator))
	for _, dir := range filepath.SplitList(path) {
		if _, err := os.Stat(filepath.Join(dir, "go")); err == nil {
			t.Skipf("%s holds a go binary: no PATH without Go here", dir)
		}
	}
	return path
}

// project copies a fixture environment into a fresh project's
// .silo/environments/NAME.
func project(t *testing.T, fixture, name string) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join("..", "..", "fixtures", filepath.FromSlash(fixture))
	dst := filepath.Join(dir, ".silo", "environments", name)
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// mustRun runs a command in dir with env and wants it to exit 0.
func mustRun(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// gate records and checks the project's cases with the installed oracle,
// and wants every case unchanged.
func gate(t *testing.T, dir string, env []string, oracle ...string) {
	t.Helper()
	out := mustRun(t, dir, env, oracle[0], append(oracle[1:], "version")...)
	if strings.TrimSpace(out) != "oracle version "+testVersion {
		t.Errorf("version: %q, want the stamped %s", out, testVersion)
	}
	mustRun(t, dir, env, oracle[0], append(oracle[1:], "record")...)
	out = mustRun(t, dir, env, oracle[0], append(oracle[1:], "check")...)
	if !strings.Contains(out, " unchanged") || strings.Contains(out, "changed ") {
		t.Errorf("check after record:\n%s", out)
	}
	t.Logf("check:\n%s", out)
}

// TestNPMInstall: the npm tarballs, packed by npm from the release's
// folders, install into a project of the original runner's shape with no
// Go on the PATH, and `npx oracle check` gates its TypeScript environment.
func TestNPMInstall(t *testing.T) {
	dist, tg := release(t)
	for _, tool := range []string{"node", "npm", "npx"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	tsx := os.Getenv("ORACLE_TSX")
	if tsx == "" {
		t.Skip("tsx is not installed: set ORACLE_TSX to a node_modules/tsx (.ci/run installs one)")
	}
	packs := t.TempDir()
	for _, folder := range []string{"oracle", tg.NPMFolder()} {
		mustRun(t, packs, os.Environ(), "npm", "pack", "--silent", "--pack-destination", packs, filepath.Join(dist, "npm", folder))
	}
	tarballs, _ := filepath.Glob(filepath.Join(packs, "*.tgz"))
	if len(tarballs) != 2 {
		t.Fatalf("npm pack made %v", tarballs)
	}
	dir := project(t, "ts/invoices", "invoices")
	os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name": "silo-project", "private": true, "type": "module"}`+"\n"), 0o644)
	env := []string{"PATH=" + noGoPath(t), "HOME=" + t.TempDir(), "npm_config_cache=" + t.TempDir(), "ORACLE_TSX=" + tsx, "NO_COLOR=1"}
	mustRun(t, dir, env, "npm", append([]string{"install", "--offline", "--no-audit", "--no-fund", "--save-dev"}, tarballs...)...)
	if _, err := exec.LookPath("go"); err == nil {
		cmd := exec.Command("sh", "-c", "command -v go")
		cmd.Env = env
		if out, err := cmd.Output(); err == nil {
			t.Fatalf("go is on the test's PATH: %s", out)
		}
	}
	gate(t, dir, env, "npx", "oracle")
}

// TestWheelInstall: the wheel installs offline into a fresh virtualenv,
// and its oracle gates a Python environment.
func TestWheelInstall(t *testing.T) {
	dist, tg := release(t)
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed (the tickets fixture's solver is a module: agent)")
	}
	venv := filepath.Join(t.TempDir(), "venv")
	if out, err := exec.Command(python, "-m", "venv", venv).CombinedOutput(); err != nil {
		t.Skipf("python3 cannot make a virtualenv (Debian: apt-get install python3-venv): %v\n%s", err, out)
	}
	wheel := filepath.Join(dist, "wheels", wheelFileName(testVersion, tg))
	bin := filepath.Join(venv, "bin")
	env := []string{"PATH=" + noGoPath(t, bin), "HOME=" + t.TempDir(), "PIP_NO_INDEX=1", "PIP_DISABLE_PIP_VERSION_CHECK=1", "NO_COLOR=1"}
	mustRun(t, t.TempDir(), env, filepath.Join(bin, "pip"), "install", "--no-index", wheel)
	if info, err := os.Stat(filepath.Join(bin, "oracle")); err != nil || info.Mode().Perm()&0o111 == 0 {
		t.Fatalf("pip put no executable oracle in the virtualenv: %v, %v", info, err)
	}
	gate(t, project(t, "py/tickets", "tickets"), env, filepath.Join(bin, "oracle"))
}

// TestReproducible: two releases of the same source are the same bytes,
// binaries, packages and wheels alike, whatever folder they are made in.
func TestReproducible(t *testing.T) {
	dist, tg := release(t)
	again := filepath.Join(t.TempDir(), "elsewhere", "dist")
	if _, err := (Release{Root: filepath.Join("..", ".."), Version: testVersion, Targets: []Target{tg}}).Write(again); err != nil {
		t.Fatal(err)
	}
	first, _ := os.ReadFile(filepath.Join(dist, checksumsFile))
	second, _ := os.ReadFile(filepath.Join(again, checksumsFile))
	if string(first) != string(second) || len(first) == 0 {
		t.Errorf("two releases differ:\n%s\n%s", first, second)
	}
}
