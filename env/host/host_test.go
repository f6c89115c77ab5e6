package host_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/env/host"
	"github.com/agent-oracle/oracle/runner"
)

// fake starts the fake host (fakehost_test.go) with the faults of mode.
func fake(t *testing.T, mode string, tune func(*host.Config)) *host.Environment {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg := host.Config{Name: "counter", Command: []string{exe}, Env: append(os.Environ(), fakeHostEnv+"="+mode+",tasks"),
		What: "the fake host", Hosts: 2, Timeout: 10 * time.Second}
	if tune != nil {
		tune(&cfg)
	}
	e, err := host.New(cfg)
	if err == nil {
		err = e.Start()
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// startHost starts the first host of cfg, and stops it.
func startHost(cfg host.Config) error {
	e, err := host.New(cfg)
	if err != nil {
		return err
	}
	defer e.Close()
	return e.Start()
}

func script(calls ...string) runner.Script {
	var s runner.Script
	for _, c := range calls {
		tool, input, _ := strings.Cut(c, " ")
		s.Calls = append(s.Calls, runner.ScriptCall{Tool: tool, Input: json.RawMessage(input)})
	}
	s.Output = json.RawMessage(`"done"`)
	return s
}

func roll(t *testing.T, e env.Environment, cfg runner.Config, calls ...string) (*runner.Outcome, error) {
	t.Helper()
	task, err := env.FindTask(e, "TASK-001")
	if err != nil {
		t.Fatal(err)
	}
	return runner.Run(context.Background(), e, task, runner.ScriptAgent(script(calls...)), cfg)
}

// TestRollout: a rollout through a host goes through runner.Run like any
// other: inputs validated by oracle before the host sees them, tool errors
// as the agent reads them, the state diffed from the states the host
// returns, the checks scored by oracle.
func TestRollout(t *testing.T) {
	e := fake(t, "", nil)
	o, err := roll(t, e, runner.Config{}, `inc {}`, `inc {"by":"two"}`, `fail {}`, `inc {"by":1}`, `read {}`)
	if err != nil {
		t.Fatal(err)
	}
	r := o.Result
	if r.Verdict != env.Pass || r.ToolCalls != 5 || r.ToolErrors != 2 || r.RequiredTotal != 1 || r.Reward != 1 {
		t.Errorf("result %s", o.Artifacts.Result)
	}
	if len(r.Checks) != 2 || r.Checks[1].Kind != env.OptionalKind || r.Checks[1].Detail != "" {
		t.Errorf("checks %+v", r.Checks)
	}
	calls := string(o.Artifacts.Calls)
	for _, want := range []string{`"code": "invalid_input"`, `"pointer": "/by"`, `"code": "not_allowed"`, `"n": 1`} {
		if !strings.Contains(calls, want) {
			t.Errorf("calls.json lacks %s (the invalid input must not reach the host):\n%s", want, calls)
		}
	}
	if !strings.Contains(string(o.Artifacts.StateDiff), `"to": 2`) {
		t.Errorf("state diff %s", o.Artifacts.StateDiff)
	}
}

// TestFaults: a host that crashes, prints garbage, answers beyond the
// limits or out of turn ends its rollout as an error, one line with the
// end of its stderr where it wrote one; the next rollout gets a fresh host.
func TestFaults(t *testing.T) {
	for _, c := range []struct {
		name, mode, tool string
		want             []string
	}{
		{"crash", "", "crash", []string{"call crash: the fake host exited with status 3", "stderr: fatal: the counter overflowed"}},
		{"garbage", "", "garbage", []string{`line 4 is not JSON: "Counting to 1..."`, "a host writes only protocol messages on stdout"}},
		{"deep", "", "deep", []string{"is nested too deep"}},
		{"big", "", "big", []string{"wrote line 4 longer than 65536 bytes"}},
		{"stray", "stray", "read", []string{"a result message for request 1003, which oracle did not send"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := fake(t, c.mode, func(cfg *host.Config) { cfg.MaxMessageBytes = 64 << 10 })
			_, err := roll(t, e, runner.Config{}, `inc {}`, c.tool+` {}`, `inc {}`)
			if err == nil {
				t.Fatal("the rollout did not fail")
			}
			msg := err.Error()
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
			if strings.ContainsAny(msg, "\r\n") {
				t.Errorf("error %q is not one line", msg)
			}
			o, err := roll(t, e, runner.Config{}, `inc {"by":2}`)
			if err != nil || o.Result.Verdict != env.Pass {
				t.Fatalf("the next rollout: %v", err)
			}
		})
	}
}

// TestStuckTool: a tool that never returns is given up at the rollout's
// budget; its host is stopped, the rollout ends timeout, and the verifier
// grades the state from before the call, rebuilt in a fresh host.
func TestStuckTool(t *testing.T) {
	e := fake(t, "", nil)
	start := time.Now()
	o, err := roll(t, e, runner.Config{Timeout: 300 * time.Millisecond}, `inc {}`, `inc {}`, `hang {}`, `inc {}`)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the rollout took %v", took)
	}
	r := o.Result
	if r.TerminationReason != runner.Timeout || r.Verdict != env.Pass {
		t.Errorf("result %s", o.Artifacts.Result)
	}
	if !strings.Contains(string(o.Artifacts.Calls), "tool_abandoned") {
		t.Errorf("calls %s", o.Artifacts.Calls)
	}
	o, err = roll(t, e, runner.Config{}, `inc {}`)
	if err != nil || o.Result.Checks[0].Detail != "n=1" {
		t.Fatalf("the next rollout: %v %s", err, o.Artifacts.Result)
	}
}

// TestStuckVerifier: a verifier that never returns is an error in the
// result once the timeout has passed, never a pass.
func TestStuckVerifier(t *testing.T) {
	e := fake(t, "hangverify", func(cfg *host.Config) { cfg.Timeout, cfg.StartTimeout = 300*time.Millisecond, 10*time.Second })
	o, err := roll(t, e, runner.Config{}, `inc {}`, `inc {}`)
	if err != nil {
		t.Fatal(err)
	}
	if o.Result.Passed || o.Result.Error == nil || *o.Result.Error != "verifier VER-001 did not return within 300ms; its host was stopped" {
		t.Errorf("result %s", o.Artifacts.Result)
	}
}

// TestNondeterministic: a tool that reads the wall clock gives two
// rollouts different artifacts, which record refuses.
func TestNondeterministic(t *testing.T) {
	e := fake(t, "", nil)
	a, err := roll(t, e, runner.Config{}, `clock {}`)
	if err != nil {
		t.Fatal(err)
	}
	b, err := roll(t, e, runner.Config{}, `clock {}`)
	if err != nil {
		t.Fatal(err)
	}
	if string(a.Artifacts.StateDiff) == string(b.Artifacts.StateDiff) {
		t.Error("two rollouts of a tool reading the clock gave the same state diff")
	}
}

// TestHello: a host that speaks another protocol, or says nothing, is
// refused when it starts, with a message that says why.
func TestHello(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ mode, want string }{
		{"v2", "the fake host: it speaks protocol 2; this oracle speaks protocol 1"},
		{"nohello", "the fake host sent no hello within 300ms"},
	} {
		err := startHost(host.Config{Name: "counter", Command: []string{exe}, Env: append(os.Environ(), fakeHostEnv+"="+c.mode),
			What: "the fake host", Timeout: 300 * time.Millisecond})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.mode, err, c.want)
		}
	}
	err = startHost(host.Config{Name: "other", Command: []string{exe}, Env: append(os.Environ(), fakeHostEnv+"="), Timeout: 5 * time.Second})
	if err == nil || !strings.Contains(err.Error(), `its hello names the environment "counter", not "other"`) {
		t.Errorf("a hello of another name: %v", err)
	}
}

// TestFolderTasks: without tasks in the hello, the tasks are the
// environment folder's tasks/*.json, read as strictly as for Go.
func TestFolderTasks(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "tasks"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(dir, "tasks", name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("TASK-001.json", `{"id":"TASK-001","title":"t","instruction":"Count to two.","verifierId":"VER-001"}`)
	exe, _ := os.Executable()
	e, err := host.New(host.Config{Name: "counter", Command: []string{exe}, Env: append(os.Environ(), fakeHostEnv+"="), Folder: dir, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if tasks, err := e.Tasks(); err != nil || len(tasks) != 1 || tasks[0].Instruction != "Count to two." {
		t.Errorf("tasks %v %v", tasks, err)
	}
	write("TASK-002.json", `{"id":"TASK-002","title":"t","instruction":"i","verifierId":"VER-002","extra":1}`)
	e2, err := host.New(host.Config{Name: "counter", Command: []string{exe}, Env: append(os.Environ(), fakeHostEnv+"="), Folder: dir, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()
	if _, err := e2.Tasks(); err == nil || !strings.Contains(err.Error(), "TASK-002.json") {
		t.Errorf("a task with an unknown field: %v", err)
	}
}
