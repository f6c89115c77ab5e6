package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/agent-oracle/oracle/command"
	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/fixtures"
	"github.com/agent-oracle/oracle/fixtures/crm"
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

// testEnvironments are the built-in environments, plus a nondeterministic
// one when ORACLE_TEST_FLAKY is set; ORACLE_MUTANT=NAME replaces crm by the
// crm mutant of that name.
func testEnvironments() ([]env.Environment, error) {
	envs, err := fixtures.All()
	if err != nil {
		return nil, err
	}
	if name := os.Getenv("ORACLE_MUTANT"); name != "" {
		mutant, err := crm.NewMutant(name)
		if err != nil {
			return nil, err
		}
		for i := range envs {
			if envs[i].Name() == mutant.Name() {
				envs[i] = mutant
			}
		}
	}
	if os.Getenv("ORACLE_TEST_FLAKY") != "" {
		flaky, err := flakyEnvironment()
		if err != nil {
			return nil, err
		}
		envs = append(envs, flaky)
	}
	return envs, nil
}

type flakyState struct {
	Draws []int `json:"draws"`
}

var draws atomic.Int64

// flakyEnvironment's only tool returns a number that differs every call, as
// an environment reading the wall clock or an unseeded random source would.
func flakyEnvironment() (env.Environment, error) {
	return env.New(env.Definition[flakyState]{
		Name: "flaky",
		TaskFiles: fstest.MapFS{"tasks/TASK-001.json": {Data: []byte(
			`{"id":"TASK-001","title":"Draw a number","instruction":"Draw a number.","verifierId":"VER-001"}`)}},
		NewState: func(env.Task) (*flakyState, error) { return &flakyState{Draws: []int{}}, nil },
		Tools: []env.Tool[flakyState]{{Name: "draw", Description: "Draws a number.", InputSchema: `{"type":"object"}`,
			Run: func(s *flakyState, _ json.RawMessage) (any, error) {
				n := int(draws.Add(1))
				s.Draws = append(s.Draws, n)
				return n, nil
			}}},
		Verifiers: []env.Verifier[flakyState]{{ID: "VER-001", TaskID: "TASK-001", Name: "drew",
			Check: func(final, _ *flakyState, _ env.VerifyContext) []env.CheckResult {
				return []env.CheckResult{env.Check("drew a number", len(final.Draws) == 1, fmt.Sprint(len(final.Draws), " draws"))}
			}}},
		Agents: map[string]env.Agent{"solver": env.AgentFunc(func(ctx context.Context, in env.AgentInput) (any, error) {
			r := in.Call(ctx, "draw", nil)
			return "drew " + string(r.Output), nil
		})},
	})
}

func TestScripts(t *testing.T) {
	committed, err := filepath.Abs(filepath.Join("..", "..", ".silo", "baselines"))
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// baselines copies the repository's committed baselines into the
			// script's .silo/baselines.
			"baselines": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 0 {
					ts.Fatalf("usage: baselines")
				}
				ts.Check(copyBaselines(committed, ts.MkAbs(filepath.Join(".silo", "baselines"))))
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
			return nil
		},
		// [reference] holds when the original runner's artifacts are at hand.
		Condition: func(cond string) (bool, error) {
			if cond != "reference" {
				return false, fmt.Errorf("unknown condition %q", cond)
			}
			_, err := os.Stat(referenceDir())
			return err == nil, nil
		},
	})
}

// unquote turns \n in a script argument into a newline.
func unquote(s string) string { return strings.ReplaceAll(s, `\n`, "\n") }

// copyBaselines copies the baseline files (*.json) under from into to,
// keeping their paths; it leaves anything else, such as a writer's lock.
func copyBaselines(from, to string) error {
	copied := 0
	err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") {
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
		err = fmt.Errorf("no baselines under %s", from)
	}
	return err
}

// referenceDir is where the original TypeScript runner's artifacts are kept
// beside the repository, when they are.
func referenceDir() string {
	dir, _ := filepath.Abs(filepath.Join("..", "..", "..", "shared", "reference", "silo"))
	return dir
}
