package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestHostScripts runs the scripts of testdata/hosts: environments served
// by the Node and Python hosts. Conditions say what the machine has:
//
//	[node]    node 20 or newer is on PATH
//	[tsx]     ORACLE_TSX names a tsx package (.ci/run installs one)
//	[typescript] typescript 5's compiler API is in ORACLE_TYPESCRIPT or beside tsx
//	[python]  python3 is on PATH
//
// A script that needs what is missing skips, saying so.
func TestHostScripts(t *testing.T) {
	if testing.Short() {
		t.Skip("the hosts' scripts start Node and Python processes, which is slow; go test -short leaves them out")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir: "testdata/hosts",
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"schema": schemaCmd, // distschemas_test.go
			// cpdir SRC DST copies the folder SRC to DST.
			"cpdir": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 2 {
					ts.Fatalf("usage: cpdir SRC DST")
				}
				ts.Check(copyDir(ts.MkAbs(args[0]), ts.MkAbs(args[1])))
			},
			// replace FILE OLD NEW replaces the first OLD in FILE by NEW.
			"replace": replaceCmd,
			// glob [-w FILE] PATTERN prints the files that PATTERN matches
			// (at least one), each first overwritten with FILE's content.
			"glob": globCmd,
		},
		Setup: func(e *testscript.Env) error {
			e.Setenv("NO_COLOR", "1")
			e.Setenv("ORACLE_ROOT", root)
			// the hosts are written into the script's own cache
			e.Setenv("XDG_CACHE_HOME", filepath.Join(e.WorkDir, ".cache"))
			if tsx := os.Getenv("ORACLE_TSX"); tsx != "" {
				e.Setenv("ORACLE_TSX", tsx)
			}
			if ts := os.Getenv("ORACLE_TYPESCRIPT"); ts != "" {
				e.Setenv("ORACLE_TYPESCRIPT", ts)
			}
			return nil
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "node":
				return nodeVersion() >= 20, nil
			case "tsx":
				return os.Getenv("ORACLE_TSX") != "", nil
			case "typescript":
				// [typescript] holds when oracle mutate finds the compiler
				// API of typescript 5: in $ORACLE_TYPESCRIPT, or beside tsx
				dirs := []string{filepath.Join(os.Getenv("ORACLE_TYPESCRIPT"), "typescript"), os.Getenv("ORACLE_TYPESCRIPT")}
				if os.Getenv("ORACLE_TYPESCRIPT") == "" {
					dirs = []string{filepath.Join(filepath.Dir(filepath.Clean(os.Getenv("ORACLE_TSX"))), "typescript")}
				}
				for _, d := range dirs {
					if _, err := os.Stat(filepath.Join(d, "lib", "typescript.js")); err == nil && os.Getenv("ORACLE_TSX") != "" {
						return true, nil
					}
				}
				return false, nil
			case "python":
				_, err := exec.LookPath("python3")
				return err == nil, nil
			}
			return false, nil
		},
	})
}

// nodeVersion is the major version of the node on PATH, 0 for none.
var nodeVersion = sync.OnceValue(func() int {
	out, err := exec.Command("node", "--version").Output()
	if err != nil {
		return 0
	}
	major, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimSpace(string(out)), "v"), ".")
	n, _ := strconv.Atoi(major)
	return n
})

func replaceCmd(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: replace FILE OLD NEW")
	}
	path := ts.MkAbs(args[0])
	data, err := os.ReadFile(path)
	ts.Check(err)
	old := unquote(args[1])
	if !strings.Contains(string(data), old) {
		ts.Fatalf("%s does not contain %q", args[0], args[1])
	}
	ts.Check(os.WriteFile(path, []byte(strings.Replace(string(data), old, unquote(args[2]), 1)), 0o644))
}

func globCmd(ts *testscript.TestScript, neg bool, args []string) {
	var with []byte
	if len(args) == 3 && args[0] == "-w" {
		data, err := os.ReadFile(ts.MkAbs(args[1]))
		ts.Check(err)
		with, args = data, args[2:]
	}
	if neg || len(args) != 1 {
		ts.Fatalf("usage: glob [-w FILE] PATTERN")
	}
	matches, err := filepath.Glob(ts.MkAbs(args[0]))
	ts.Check(err)
	if len(matches) == 0 {
		ts.Fatalf("no file matches %s", args[0])
	}
	for _, m := range matches {
		if with != nil {
			ts.Check(os.WriteFile(m, with, 0o600))
		}
		data, err := os.ReadFile(m)
		ts.Check(err)
		ts.Stdout().Write(append(data, '\n'))
	}
}

// copyDir copies the regular files under from to to, keeping their paths.
func copyDir(from, to string) error {
	return filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, path)
		if err != nil {
			return err
		}
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
}
