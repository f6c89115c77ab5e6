package host_test

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-oracle/oracle/command"
	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/env/host"
	"github.com/agent-oracle/oracle/runner"
)

// The benchmarks of the hosts: a tool call's round trip, a rollout of a
// world of a CRM's size (twelve collections, 360 records, six calls), the
// throughput of two jobs through one host with two worlds or two hosts,
// and oracle's marginal rollout and whole check of a TypeScript
// environment against the original runner's way, one fresh process per
// rollout that imports the environment and the agent again. They skip
// without node (and tsx, for TypeScript: ORACLE_TSX) or python3.

// benchProject is a project holding the environment folder from (a
// manifest named name is written for entry) and, for the TypeScript
// benchmarks, node_modules/@burn0/silo as a project of the original runner
// has it.
func benchProject(b *testing.B, name, from, entry string) (string, env.Manifest) {
	b.Helper()
	dir := b.TempDir()
	folder := filepath.Join(dir, ".silo", "environments", name)
	if err := copyTree(from, folder); err != nil {
		b.Fatal(err)
	}
	if err := copyTree(filepath.Join("node", "silo"), filepath.Join(dir, "node_modules", "@burn0", "silo")); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"type": "module"}`+"\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	m := env.Manifest{Name: name, Entrypoint: entry, Agents: map[string]string{}}
	return dir, m
}

func copyTree(from, to string) error {
	return filepath.Walk(from, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), data, 0o644)
	})
}

func needNode(b *testing.B) {
	if out, err := exec.Command("node", "--version").Output(); err != nil || strings.Compare(strings.TrimSpace(string(out)), "v20") < 0 {
		b.Skip("node 20 or newer is not installed")
	}
}

func needTSX(b *testing.B) string {
	needNode(b)
	tsx := os.Getenv("ORACLE_TSX")
	if tsx == "" {
		b.Skip("tsx is not installed: set ORACLE_TSX to a node_modules/tsx")
	}
	return tsx
}

func needPython(b *testing.B) {
	if _, err := exec.LookPath("python3"); err != nil {
		b.Skip("python3 is not installed")
	}
}

// benchEnv starts the benchmark world of lang (node or python).
func benchEnv(b *testing.B, lang string, opts host.Options) *host.Environment {
	b.Helper()
	entry := "bench.mjs"
	if lang == env.LangPython {
		needPython(b)
		entry = "bench.py"
	} else {
		needNode(b)
	}
	dir, m := benchProject(b, "bench", filepath.Join("testdata", "bench"), entry)
	e, err := host.Load(dir, m, opts)
	if err == nil {
		err = e.Start()
	}
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	return e
}

var sixCalls = runner.Script{Calls: []runner.ScriptCall{
	{Tool: "get_clock", Input: json.RawMessage(`{}`)},
	{Tool: "list_open", Input: json.RawMessage(`{"collection":"accounts"}`)},
	{Tool: "get_record", Input: json.RawMessage(`{"collection":"accounts","id":"ACC-001"}`)},
	{Tool: "update_record", Input: json.RawMessage(`{"collection":"accounts","field":"status","id":"ACC-001","value":"won"}`)},
	{Tool: "get_record", Input: json.RawMessage(`{"collection":"contacts","id":"CON-002"}`)},
	{Tool: "update_record", Input: json.RawMessage(`{"collection":"opportunities","field":"notes","id":"OPP-003","value":"ACC-001 won"}`)},
}, Output: json.RawMessage(`"ACC-001 is won."`)}

// BenchmarkCall is the round trip of one tool call through a host: the
// request written, the tool run, the answer read.
func BenchmarkCall(b *testing.B) {
	for _, lang := range []string{env.LangNode, env.LangPython} {
		b.Run(lang, func(b *testing.B) {
			e := benchEnv(b, lang, host.Options{Hosts: 1})
			task, _ := env.FindTask(e, "TASK-001")
			w, err := e.Open(task)
			if err != nil {
				b.Fatal(err)
			}
			for _, tool := range []struct{ name, input string }{
				{"get_clock", `{}`},
				{"update_record", `{"collection":"accounts","field":"status","id":"ACC-001","value":"won"}`},
			} {
				b.Run(tool.name, func(b *testing.B) {
					for b.Loop() {
						if _, err := w.Call(context.Background(), tool.name, json.RawMessage(tool.input)); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}

// BenchmarkRollout is one rollout of the CRM-sized world, six calls, as
// check makes it (no trace): a scripted agent, and the agent module in
// Node that makes the same calls.
func BenchmarkRollout(b *testing.B) {
	cfg := runner.Config{ResultOnly: true}
	for _, lang := range []string{env.LangNode, env.LangPython} {
		b.Run(lang+"/script", func(b *testing.B) {
			e := benchEnv(b, lang, host.Options{Hosts: 1})
			task, _ := env.FindTask(e, "TASK-001")
			for b.Loop() {
				if _, err := runner.Run(context.Background(), e, task, runner.ScriptAgent(sixCalls), cfg); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("node/module", func(b *testing.B) {
		e := benchEnv(b, env.LangNode, host.Options{Hosts: 1})
		task, _ := env.FindTask(e, "TASK-001")
		agent := moduleAgent(b, filepath.Join(e.Folder(), "agent.mjs"))
		for b.Loop() {
			o, err := runner.Run(context.Background(), e, task, agent, cfg)
			if err != nil || o.Result.Verdict != env.Pass {
				b.Fatal(err)
			}
		}
	})
}

func moduleAgent(b *testing.B, path string) env.Agent {
	b.Helper()
	a, err := host.ModuleAgent(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(host.Shutdown)
	return a
}

// BenchmarkJobs is the throughput of two jobs of rollouts (module agent,
// CRM-sized world): through two hosts of one world each, or one host of
// two worlds. ns/op is per rollout.
func BenchmarkJobs(b *testing.B) {
	for _, c := range []struct {
		name string
		opts host.Options
	}{{"2hosts", host.Options{Hosts: 2, WorldsPerHost: 1}}, {"1host2worlds", host.Options{Hosts: 1, WorldsPerHost: 2}}} {
		b.Run(c.name, func(b *testing.B) {
			e := benchEnv(b, env.LangNode, c.opts)
			task, _ := env.FindTask(e, "TASK-001")
			agent := moduleAgent(b, filepath.Join(e.Folder(), "agent.mjs"))
			// the hosts started before the clock runs: enough worlds at
			// once to make the pool grow
			var open []env.World
			for range 40 {
				w, err := e.Open(task)
				if err != nil {
					b.Fatal(err)
				}
				open = append(open, w)
			}
			for _, w := range open {
				w.(interface{ Release() }).Release()
			}
			for deadline := time.Now().Add(time.Minute); host.Hosts(e) < c.opts.Hosts && time.Now().Before(deadline); {
				time.Sleep(10 * time.Millisecond)
			}
			next := make(chan struct{})
			var wg sync.WaitGroup
			for range 2 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range next {
						if _, err := runner.Run(context.Background(), e, task, agent, runner.Config{ResultOnly: true}); err != nil {
							b.Error(err)
						}
					}
				}()
			}
			for b.Loop() {
				next <- struct{}{}
			}
			close(next)
			wg.Wait()
		})
	}
}

// tsxLoader is the loader of the tsx package at ORACLE_TSX, for node
// --import.
func tsxLoader(b *testing.B, tsx string) string {
	data, err := os.ReadFile(filepath.Join(tsx, "package.json"))
	if err != nil {
		b.Skipf("ORACLE_TSX: %v", err)
	}
	var pkg struct {
		Exports map[string]json.RawMessage `json:"exports"`
	}
	json.Unmarshal(data, &pkg)
	var main string
	if json.Unmarshal(pkg.Exports["."], &main) != nil {
		main = "./dist/loader.mjs"
	}
	return filepath.Join(tsx, filepath.FromSlash(main))
}

// BenchmarkMarginalRollout is what one more rollout of the TypeScript
// invoices environment and its TypeScript solver costs: through oracle's
// hosts, started once (oracle), and the original runner's way, a fresh
// node --import tsx process that imports the environment and the agent
// again (fresh-process).
func BenchmarkMarginalRollout(b *testing.B) {
	tsx := needTSX(b)
	dir, m := benchProject(b, "invoices", filepath.Join("..", "..", "fixtures", "ts", "invoices"), "./index.ts")
	folder := filepath.Join(dir, ".silo", "environments", "invoices")
	b.Run("oracle", func(b *testing.B) {
		e, err := host.Load(dir, m, host.Options{Hosts: 1})
		if err == nil {
			err = e.Start()
		}
		if err != nil {
			b.Fatal(err)
		}
		defer e.Close()
		task, _ := env.FindTask(e, "TASK-003")
		agent := moduleAgent(b, filepath.Join(folder, "solver.agent.ts"))
		for b.Loop() {
			o, err := runner.Run(context.Background(), e, task, agent, runner.Config{ResultOnly: true})
			if err != nil || o.Result.Verdict != env.Pass {
				b.Fatalf("%v %s", err, o.Artifacts.Result)
			}
		}
	})
	b.Run("fresh-process", func(b *testing.B) {
		loader := tsxLoader(b, tsx)
		for b.Loop() {
			freshRollout(b, dir, loader, folder, "TASK-003")
		}
	})
}

// freshRollout runs one rollout in a process of its own (testdata/bench/runone.mjs).
func freshRollout(b *testing.B, dir, loader, folder, task string) {
	cmd := exec.Command("node", "--import", loader, filepath.Join(benchDir(b), "runone.mjs"),
		filepath.Join(folder, "index.ts"), filepath.Join(folder, "solver.agent.ts"), filepath.Join(folder, "tasks", task+".json"))
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil || !strings.Contains(string(out), `"passed": true`) {
		b.Fatalf("runone %s: %v %s", task, err, out)
	}
}

func benchDir(b *testing.B) string {
	d, err := filepath.Abs(filepath.Join("testdata", "bench"))
	if err != nil {
		b.Fatal(err)
	}
	return d
}

// BenchmarkCheck is a whole oracle check of the six-task TypeScript
// environment, two runs a case, start-up of its hosts included (oracle),
// against twelve fresh processes one after the other, one per rollout
// (fresh-process).
func BenchmarkCheck(b *testing.B) {
	tsx := needTSX(b)
	dir, _ := benchProject(b, "invoices", filepath.Join("..", "..", "fixtures", "ts", "invoices"), "./index.ts")
	folder := filepath.Join(dir, ".silo", "environments", "invoices")
	none := func() ([]env.Environment, error) { return nil, nil }
	oracle := func(args ...string) {
		if code := command.Run(context.Background(), append([]string{"oracle", "-C", dir}, args...), none, io.Discard, io.Discard); code != 0 {
			b.Fatalf("oracle %s: exit %d", strings.Join(args, " "), code)
		}
	}
	oracle("record")
	b.Run("oracle", func(b *testing.B) {
		for b.Loop() {
			oracle("check", "--repeat", "2")
		}
	})
	b.Run("fresh-process", func(b *testing.B) {
		loader := tsxLoader(b, tsx)
		for b.Loop() {
			for _, task := range []string{"TASK-001", "TASK-002", "TASK-003", "TASK-004", "TASK-005", "TASK-006"} {
				for range 2 {
					freshRollout(b, dir, loader, folder, task)
				}
			}
		}
	})
}

// BenchmarkPythonAgent is a whole oracle check of the bank suite
// (fixtures/py/bank: four cases, twenty runs a case), start-up of its hosts
// included, with the same solver run warm as python:solver.py (python)
// and as exec:python3 exec_solver.py solver.py (exec), one fresh process
// and one import of the solver per rollout, in the sandbox when it works
// here (the default).
func BenchmarkPythonAgent(b *testing.B) {
	needPython(b)
	for _, agent := range []struct{ name, ref string }{
		{"python", "python:solver.py"},
		{"exec", "exec:python3 exec_solver.py solver.py"},
	} {
		b.Run(agent.name, func(b *testing.B) {
			dir, _ := benchProject(b, "bank", filepath.Join("..", "..", "fixtures", "py", "bank"), "./env.py")
			manifest := filepath.Join(dir, ".silo", "environments", "bank", env.ManifestFile)
			data, err := os.ReadFile(manifest)
			if err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(manifest, []byte(strings.Replace(string(data), `"python:solver.py"`, `"`+agent.ref+`"`, 1)), 0o644); err != nil {
				b.Fatal(err)
			}
			none := func() ([]env.Environment, error) { return nil, nil }
			oracle := func(args ...string) {
				if code := command.Run(context.Background(), append([]string{"oracle", "-C", dir}, args...), none, io.Discard, io.Discard); code != 0 {
					b.Fatalf("oracle %s: exit %d", strings.Join(args, " "), code)
				}
			}
			oracle("record")
			for b.Loop() {
				oracle("check", "--repeat", "20")
			}
		})
	}
}
