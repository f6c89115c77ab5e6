package main

import (
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
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"fakechat": fakeChat, // fakechat_test.go
			// baselines copies the repository's committed regression suite
			// into the script's .silo: the baselines, and the traces of its
			// replay cases.
			"baselines": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 0 {
					ts.Fatalf("usage: baselines")
				}
				ts.Check(copySuite(root, ts.MkAbs(".")))
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
			// paste OUTPUT MANIFEST adds the redaction rules record printed
			// in OUTPUT (its lines from "[" to "]") to the "redact" list of
			// MANIFEST, as a user pastes them.
			"paste": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 2 {
					ts.Fatalf("usage: paste OUTPUT MANIFEST")
				}
				ts.Check(pasteRules(ts.ReadFile(args[0]), ts.MkAbs(args[1])))
			},
			// replace FILE OLD NEW replaces the first OLD in FILE by NEW.
			"replace": replaceCmd,
			"schema":  schemaCmd, // distschemas_test.go
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

// pasteRules adds the rules of the first JSON list printed on lines of
// their own in output to the "redact" list of the manifest at path.
func pasteRules(output, path string) error {
	_, list, ok := strings.Cut(output, "\n[\n")
	if !ok {
		return fmt.Errorf("no list of rules in the output")
	}
	list, _, ok = strings.Cut(list, "\n]\n")
	if !ok {
		return fmt.Errorf("the list of rules in the output does not end")
	}
	var rules []json.RawMessage
	if err := json.Unmarshal([]byte("["+list+"]"), &rules); err != nil {
		return fmt.Errorf("the rules printed are not JSON: %v", err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	have, _ := m["redact"].([]any)
	for _, r := range rules {
		have = append(have, r)
	}
	m["redact"] = have
	out, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(out, '\n'), 0o644)
}

// unquote turns \n in a script argument into a newline.
func unquote(s string) string { return strings.ReplaceAll(s, `\n`, "\n") }

// copySuite copies the regression suite committed in the repository at
// root (its baselines and the traces of its replay cases) into the
// project at dir.
func copySuite(root, dir string) error {
	if err := copyBaselines(filepath.Join(root, ".silo", "baselines"), filepath.Join(dir, ".silo", "baselines"), ".json"); err != nil {
		return err
	}
	return copyBaselines(filepath.Join(root, ".silo", "traces"), filepath.Join(dir, ".silo", "traces"), ".trace.jsonl")
}

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
