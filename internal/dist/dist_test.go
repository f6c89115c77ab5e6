package main

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var linuxAMD64, _ = findTarget("linux/amd64")
var windowsAMD64, _ = findTarget("windows/amd64")

func TestPythonVersion(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{"0.1.0", "0.1.0", ""},
		{"12.0.3", "12.0.3", ""},
		{"1.2.0-rc.1", "1.2.0rc1", ""},
		{"1.2.0-alpha.0", "1.2.0a0", ""},
		{"1.2.0-beta.10", "1.2.0b10", ""},
		{"v1.2.0", "", "bad_version"},
		{"1.2", "", "bad_version"},
		{"01.2.3", "", "bad_version"},
		{"1.2.3-dev.1", "", "bad_version"},
		{"1.2.3+abc", "", "bad_version"},
		{"", "", "bad_version"},
	} {
		got, err := pythonVersion(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("pythonVersion(%q) = %q, %v; want error %s", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("pythonVersion(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestSourceVersion(t *testing.T) {
	v, err := sourceVersion(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pythonVersion(v); err != nil {
		t.Errorf("the source's version %q is not a release version: %v", v, err)
	}
}

func TestParseTargets(t *testing.T) {
	got, err := parseTargets("windows/amd64, linux/amd64")
	if err != nil || len(got) != 2 || got[0].String() != "windows/amd64" || got[1].String() != "linux/amd64" {
		t.Errorf("parseTargets = %v, %v", got, err)
	}
	for _, bad := range []string{"linux/386", "", "linux/amd64,linux/amd64"} {
		if _, err := parseTargets(bad); err == nil {
			t.Errorf("parseTargets(%q) accepted", bad)
		}
	}
}

// TestTargetsNamedOnce: each platform has one binary, one npm package and
// one wheel name, none shared with another platform.
func TestTargetsNamedOnce(t *testing.T) {
	seen := map[string]string{}
	for _, tg := range Targets {
		for _, name := range []string{tg.BinaryName(), tg.NPMName(), wheelFileName("1.0.0", tg), tg.NPMOS + " " + tg.NPMCPU} {
			if other, ok := seen[name]; ok {
				t.Errorf("%s and %s share %s", other, tg, name)
			}
			seen[name] = tg.String()
		}
		if len(tg.WheelTags) == 0 {
			t.Errorf("%s has no wheel tag", tg)
		}
	}
}

func TestWheel(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "oracle.exe")
	os.WriteFile(bin, []byte("MZ a binary"), 0o755)
	path, err := writeWheel(filepath.Join(dir, "a"), bin, "1.2.0rc1", windowsAMD64)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := filepath.Base(path), "agent_oracle-1.2.0rc1-py3-none-win_amd64.whl"; got != want {
		t.Errorf("wheel named %s, want %s", got, want)
	}
	again, err := writeWheel(filepath.Join(dir, "b"), bin, "1.2.0rc1", windowsAMD64)
	if err != nil {
		t.Fatal(err)
	}
	first, _ := os.ReadFile(path)
	second, _ := os.ReadFile(again)
	if !bytes.Equal(first, second) {
		t.Error("two wheels of the same binary differ")
	}

	zr, err := zip.NewReader(bytes.NewReader(first), int64(len(first)))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	var names []string
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(rc)
		rc.Close()
		files[f.Name] = data
		names = append(names, fmt.Sprintf("%s %o", f.Name, f.Mode().Perm()))
	}
	want := []string{
		"agent_oracle-1.2.0rc1.data/scripts/oracle.exe 755",
		"agent_oracle-1.2.0rc1.dist-info/METADATA 644",
		"agent_oracle-1.2.0rc1.dist-info/WHEEL 644",
		"agent_oracle-1.2.0rc1.dist-info/RECORD 644",
	}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("wheel entries (-want +got):\n%s", diff)
	}
	if !strings.Contains(string(files["agent_oracle-1.2.0rc1.dist-info/WHEEL"]), "\nTag: py3-none-win_amd64\n") {
		t.Errorf("WHEEL lacks its tag:\n%s", files["agent_oracle-1.2.0rc1.dist-info/WHEEL"])
	}
	// RECORD holds every other entry with its hash and size, as pip checks.
	record := strings.Split(strings.TrimSuffix(string(files["agent_oracle-1.2.0rc1.dist-info/RECORD"]), "\n"), "\n")
	if len(record) != len(files) {
		t.Fatalf("RECORD has %d lines for %d entries", len(record), len(files))
	}
	for _, line := range record {
		fields := strings.Split(line, ",")
		data, ok := files[fields[0]]
		if !ok || len(fields) != 3 {
			t.Errorf("RECORD line %q names no entry", line)
			continue
		}
		if strings.HasSuffix(fields[0], "/RECORD") {
			if fields[1] != "" || fields[2] != "" {
				t.Errorf("RECORD hashes itself: %q", line)
			}
			continue
		}
		sum := sha256.Sum256(data)
		if want := fmt.Sprintf("sha256=%s", base64.RawURLEncoding.EncodeToString(sum[:])); fields[1] != want || fields[2] != fmt.Sprint(len(data)) {
			t.Errorf("RECORD line %q, want %s,%d", line, want, len(data))
		}
	}
}

func TestNPMPackages(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	os.Mkdir(bin, 0o755)
	targets := []Target{linuxAMD64, windowsAMD64}
	for _, tg := range targets {
		os.WriteFile(filepath.Join(bin, tg.BinaryName()), []byte("binary of "+tg.String()), 0o755)
	}
	if err := writeNPM(filepath.Join(dir, "npm"), bin, "2.0.0", targets); err != nil {
		t.Fatal(err)
	}
	var main packageJSON
	readJSON(t, filepath.Join(dir, "npm", "oracle", "package.json"), &main)
	if diff := cmp.Diff(map[string]string{"@agent-oracle/oracle-linux-x64": "2.0.0", "@agent-oracle/oracle-win32-x64": "2.0.0"}, main.OptionalDependencies); diff != "" {
		t.Errorf("optionalDependencies (-want +got):\n%s", diff)
	}
	if main.Bin["oracle"] != "bin/oracle.js" || main.Version != "2.0.0" {
		t.Errorf("main package: %+v", main)
	}
	script, err := os.ReadFile(filepath.Join(dir, "npm", "oracle", "bin", "oracle.js"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(script, []byte("__PLATFORMS__")) || !bytes.Contains(script, []byte(`"win32 x64":["@agent-oracle/oracle-win32-x64","bin/oracle.exe"]`)) {
		t.Errorf("the launcher's table is not filled in:\n%s", script)
	}
	var win packageJSON
	readJSON(t, filepath.Join(dir, "npm", "oracle-win32-x64", "package.json"), &win)
	if diff := cmp.Diff(packageJSON{Name: "@agent-oracle/oracle-win32-x64", Version: "2.0.0", OS: []string{"win32"}, CPU: []string{"x64"}, Files: []string{"bin"}, PreferUnplugged: true, Repository: repository}, win, cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Description" }, cmp.Ignore())); diff != "" {
		t.Errorf("platform package (-want +got):\n%s", diff)
	}
	info, err := os.Stat(filepath.Join(dir, "npm", "oracle-linux-x64", "bin", "oracle"))
	if err != nil || info.Mode().Perm() != 0o755 {
		t.Errorf("the linux binary: %v, %v; want mode 755", info, err)
	}
	for _, name := range []string{"oracle", "oracle-linux-x64", "oracle-win32-x64"} {
		if _, err := os.Stat(filepath.Join(dir, "npm", name, "README.md")); err != nil {
			t.Errorf("package %s has no README: %v", name, err)
		}
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestReplaceable: a release replaces nothing but an earlier release or an
// empty folder, and a refusal writes nothing.
func TestReplaceable(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, []byte("x"), 0o644)
	other := filepath.Join(dir, "other")
	os.Mkdir(other, 0o755)
	os.WriteFile(filepath.Join(other, "notes.txt"), []byte("mine"), 0o644)
	link := filepath.Join(dir, "link")
	os.Symlink(other, link)
	old := filepath.Join(dir, "old")
	os.Mkdir(old, 0o755)
	os.WriteFile(filepath.Join(old, checksumsFile), nil, 0o644)
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	for path, ok := range map[string]bool{file: false, other: false, link: false, old: true, empty: true, filepath.Join(dir, "new"): true} {
		err := replaceable(path)
		if (err == nil) != ok {
			t.Errorf("replaceable(%s) = %v, want ok=%v", filepath.Base(path), err, ok)
		}
		if !ok {
			r := Release{Root: "..", Version: "1.0.0", Targets: []Target{linuxAMD64}}
			if _, err := r.Write(path); err == nil || !strings.Contains(err.Error(), "exists:") {
				t.Errorf("Write(%s) = %v, want an exists: error", filepath.Base(path), err)
			}
		}
	}
	if data, _ := os.ReadFile(filepath.Join(other, "notes.txt")); string(data) != "mine" {
		t.Error("a refused release touched the folder")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".dist-") {
			t.Errorf("a refused release left %s", e.Name())
		}
	}
}
