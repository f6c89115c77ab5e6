package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/command"
	"github.com/agent-oracle/oracle/runner"
	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) != "" {
		os.Exit(command.Main(os.Args[1:], testEnvironments))
	}
	testscript.Main(m, map[string]func(){
		"oracle": func() { os.Exit(command.Main(os.Args, testEnvironments)) },
	})
}

func TestScripts(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	committed := filepath.Join(root, ".silo", "baselines")
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// baselines copies the repository's committed regression suite
			// into the script's .silo: the baselines, and the traces of its
			// replay cases.
			"baselines": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 0 {
					ts.Fatalf("usage: baselines")
				}
				ts.Check(copyBaselines(committed, ts.MkAbs(filepath.Join(".silo", "baselines")), ".json"))
				ts.Check(copyBaselines(filepath.Join(root, ".silo", "traces"), ts.MkAbs(filepath.Join(".silo", "traces")), ".trace.jsonl"))
			},
			// holdlock DIR takes the baseline store's writer lock of the
			// project at DIR until the script ends, as a running record would.
			"holdlock": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 1 {
					ts.Fatalf("usage: holdlock DIR")
				}
				unlock, err := baseline.Open(ts.MkAbs(args[0])).Lock()
				ts.Check(err)
				ts.Defer(func() { unlock() })
			},
			// deep N FILE writes a JSON array nested N deep.
			"deep": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 2 {
					ts.Fatalf("usage: deep N FILE")
				}
				n, err := strconv.Atoi(args[0])
				ts.Check(err)
				ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(strings.Repeat("[", n)+strings.Repeat("]", n)+"\n"), 0o644))
			},
			// replace FILE OLD NEW replaces the first OLD in FILE by NEW.
			"replace": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 3 {
					ts.Fatalf("usage: replace FILE OLD NEW")
				}
				path := ts.MkAbs(args[0])
				data, err := os.ReadFile(path)
				ts.Check(err)
				old := []byte(unquote(args[1]))
				if !bytes.Contains(data, old) {
					ts.Fatalf("%s does not contain %q", args[0], args[1])
				}
				ts.Check(os.WriteFile(path, bytes.Replace(data, old, []byte(unquote(args[2])), 1), 0o644))
			},
		},
		Setup: func(e *testscript.Env) error {
			e.Setenv("NO_COLOR", "1")
			e.Setenv("SILO_REF", referenceDir())
			// the folder of the oracle command alone, for a PATH without bwrap
			e.Setenv("ORACLEBIN", filepath.SplitList(os.Getenv("PATH"))[0])
			e.Setenv("ORACLE_ROOT", root)
			// The go command, for scripts that build a project: this
			// machine's caches, and no network.
			for k, v := range goEnv() {
				e.Setenv(k, v)
			}
			return nil
		},
		// [reference] holds when the original runner's artifacts are at hand.
		Condition: func(cond string) (bool, error) {
			if cond == "bwrap" {
				// [bwrap] holds when the exec: sandbox works here
				_, err := runner.BwrapStatus()
				return err == nil, nil
			}
			if cond != "reference" {
				return false, fmt.Errorf("unknown condition %q", cond)
			}
			_, err := os.Stat(referenceDir())
			return err == nil, nil
		},
	})
}

// goEnv is the environment the go command needs in a script: the build
// and module caches of this machine, no proxy (everything a project of
// oracle's needs is in the module cache already), no workspace, no
// toolchain download. It is empty when there is no go command.
var goEnv = sync.OnceValue(func() map[string]string {
	out, err := exec.Command("go", "env", "-json", "GOCACHE", "GOMODCACHE", "GOPATH", "GOROOT").Output()
	if err != nil {
		return nil
	}
	vars := map[string]string{}
	if err := json.Unmarshal(out, &vars); err != nil {
		return nil
	}
	for k, v := range map[string]string{"GOPROXY": "off", "GOFLAGS": "", "GOWORK": "off", "GOTOOLCHAIN": "local", "GOENV": "off", "GONOSUMDB": "", "GOSUMDB": "off"} {
		vars[k] = v
	}
	return vars
})

// unquote turns \n in a script argument into a newline.
func unquote(s string) string { return strings.ReplaceAll(s, `\n`, "\n") }

// copyBaselines copies the files under from whose names end in suffix
// (the baselines' *.json, the traces' *.trace.jsonl) into to, keeping their
// paths; it leaves anything else, such as a writer's lock.
func copyBaselines(from, to, suffix string) error {
	copied := 0
	err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, suffix) {
			return err
		}
		rel, err := filepath.Rel(from, path)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		dst := filepath.Join(to, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		copied++
		return os.WriteFile(dst, data, 0o644)
	})
	if err == nil && copied == 0 {
		err = fmt.Errorf("no *%s files under %s", suffix, from)
	}
	return err
}

// referenceDir is where the original TypeScript runner's artifacts are kept
// beside the repository, when they are.
func referenceDir() string {
	dir, _ := filepath.Abs(filepath.Join("..", "..", "..", "shared", "reference", "silo"))
	return dir
}
