//go:build unix

package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-oracle/oracle/env"
	"github.com/google/go-cmp/cmp"
)

// execRun rolls an exec agent through the toy task.
func execRun(t *testing.T, cfg ExecConfig, rc Config) *Outcome {
	t.Helper()
	e := newToy(t, toyVerifier(setToFive), nil)
	if rc.Grace == 0 {
		rc.Grace = 10 * time.Second // generous: the exec agent ends first
	}
	if cfg.Grace == 0 {
		cfg.Grace = 2 * time.Second
	}
	o, err := Run(context.Background(), e, toyTask(t, e), ExecAgent(cfg), rc)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func errorText(r *Result) string {
	if r.Error == nil {
		return ""
	}
	return *r.Error
}

// traceEvents returns the trace events of type typ.
func traceEvents(t *testing.T, trace []byte, typ string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range bytes.Split(bytes.TrimSpace(trace), []byte("\n")) {
		var ev map[string]any
		if err := json.Unmarshal(l, &ev); err != nil {
			t.Fatalf("trace line %s: %v", l, err)
		}
		if ev["type"] == typ {
			out = append(out, ev)
		}
	}
	return out
}

func TestExecAgentSolvesLikeTheGoAgent(t *testing.T) {
	t.Parallel()
	got := execRun(t, helperExec(t, "solve-toy"), Config{Agent: "exec"})
	want := run(t, newToy(t, toyVerifier(setToFive), nil), solveToy, Config{Agent: "exec"})
	if got.Result.TerminationReason != Completed || !got.Result.Passed {
		t.Fatalf("result = %+v, error %q", got.Result, errorText(got.Result))
	}
	if diff := cmp.Diff(string(want.Artifacts.Result), string(got.Artifacts.Result)); diff != "" {
		t.Errorf("result.json of the exec agent differs from the Go agent's (-go +exec):\n%s", diff)
	}
	if diff := cmp.Diff(string(want.Artifacts.StateDiff), string(got.Artifacts.StateDiff)); diff != "" {
		t.Errorf("state-diff.json differs (-go +exec):\n%s", diff)
	}
}

func TestExecAgentStartMessage(t *testing.T) {
	t.Parallel()
	o := execRun(t, helperExec(t, "start"), Config{})
	var start struct {
		Type  string         `json:"type"`
		Task  string         `json:"task"`
		Tools []env.ToolSpec `json:"tools"`
	}
	if err := json.Unmarshal(o.Result.AgentOutput, &start); err != nil {
		t.Fatalf("output %s: %v", o.Result.AgentOutput, err)
	}
	if start.Type != "start" || start.Task != "Set counter C-1 to 5." || len(start.Tools) != 4 {
		t.Fatalf("start = %+v", start)
	}
	if start.Tools[1].Name != "set_counter" || !strings.Contains(string(start.Tools[1].InputSchema), `"minimum":0`) {
		t.Errorf("tool = %+v", start.Tools[1])
	}
}

// TestExecAgentErrors: every way an agent can break the protocol ends the
// rollout as agent_error, with a message that says which.
func TestExecAgentErrors(t *testing.T) {
	t.Parallel()
	const call = `{"type":"call","id":"c1","tool":"list_counters","input":{}}`
	tests := []struct {
		name, script, want string
	}{
		{"garbage", `read s; echo hello`, `line 1 is not JSON: invalid character 'h' looking for beginning of value: "hello"`},
		{"garbage on line 3", `read s; echo; echo '` + call + `'; read r; echo 'oops {'`, `line 3 is not JSON`},
		{"not an object", `read s; echo '[1,2]'`, `line 1 is a JSON array, not an object`},
		{"no type", `read s; echo '{"id":"c1"}'`, `line 1 has no type`},
		{"unknown type", `read s; echo '{"type":"bogus"}'`, `line 1: unknown message type "bogus"; an agent sends call or output`},
		{"call without id", `read s; echo '{"type":"call","tool":"list_counters"}'`, `line 1: call has no id`},
		{"call with an empty id", `read s; echo '{"type":"call","id":"","tool":"list_counters"}'`, `line 1: call has no id`},
		{"call without tool", `read s; echo '{"type":"call","id":"c1"}'`, `line 1: call "c1" has no tool`},
		{"line too long", `read s; head -c 1100000 /dev/zero | tr '\0' x; echo`, `line 1 is longer than 1048576 bytes`},
		{"exit without output", `read s`, `the agent did not start: it exited with status 0 before its first message, and its stderr was empty`},
		{"exit 1 with stderr", `read s; echo 'Traceback: boom' >&2; echo 'ValueError: x' >&2; exit 1`,
			`the agent did not start: ValueError: x (it exited with status 1 before its first message; stderr: Traceback: boom | ValueError: x)`},
		{"exit after a call", `read s; echo '` + call + `'; read r; exit 2`, `exited with status 2 before sending output`},
		{"crash", `read s; kill -SEGV $$`, `the agent did not start: it was killed by signal segmentation fault before its first message`},
		{"exit 4 after output", `read s; echo '{"type":"output","output":"x"}'; exit 4`, `the agent process exited with status 4 after sending its output`},
		{"command not found", `/nonexistent/agent-binary`, `the agent did not start: /bin/sh`},
		{"garbage without reading stdin", `echo hello`, `line 1 is not JSON`},
		{"call to a closed stdin", `exec 0<&-; echo '` + call + `'; sleep 300`, `cannot write to the agent's stdin: broken pipe; an agent reads its stdin until the rollout ends; its stderr was empty`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// an agent that exits by itself is given a long grace, so a
			// slow machine reaps it in time and its exit status is what
			// the error names; the one that lingers is killed after 200 ms
			grace := 10 * time.Second
			if strings.Contains(tt.script, "sleep 300") {
				grace = 200 * time.Millisecond
			}
			o := execRun(t, ExecConfig{Command: tt.script, Grace: grace}, Config{})
			if o.Result.TerminationReason != AgentError {
				t.Fatalf("termination = %s, error %q", o.Result.TerminationReason, errorText(o.Result))
			}
			if got := errorText(o.Result); !strings.Contains(got, tt.want) {
				t.Errorf("error = %q\nwant it to contain %q", got, tt.want)
			}
			if strings.Contains(errorText(o.Result), "\n") {
				t.Errorf("error is not one line: %q", errorText(o.Result))
			}
		})
	}
}

// TestExecAgentGarbageMemory: an agent that writes 10 MB of garbage ends as
// agent_error, and the runner reads no more than its line limit of it. What
// the process allocates is measured in a test process of its own, which runs
// this test alone: goroutines other tests leave behind (abandoned agents,
// readers of killed processes) allocate too, more so with -count.
func TestExecAgentGarbageMemory(t *testing.T) {
	if os.Getenv("ORACLE_TEST_ALONE") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestExecAgentGarbageMemory$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "ORACLE_TEST_ALONE=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !bytes.Contains(out, []byte("--- PASS: TestExecAgentGarbageMemory")) {
			t.Fatalf("the test alone: %v\n%s", err, out)
		}
		return
	}
	const tenMB = 10 << 20
	tests := []struct{ name, script, want string }{
		{"one endless line", `read s; head -c 10485760 /dev/zero | tr '\0' x`, "line 1 is longer than"},
		{"many lines", `read s; yes 'this is not json' | head -c 10485760`, "line 1 is not JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			o := execRun(t, ExecConfig{Command: tt.script}, Config{})
			runtime.ReadMemStats(&after)
			if o.Result.TerminationReason != AgentError || !strings.Contains(errorText(o.Result), tt.want) {
				t.Fatalf("termination %s, error %q; want agent_error with %q", o.Result.TerminationReason, errorText(o.Result), tt.want)
			}
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("the rollout allocated %d bytes in all", alloc)
			if alloc > tenMB*2/5 {
				t.Errorf("the rollout allocated %d bytes for 10 MB of garbage; reading must stop at the line limit", alloc)
			}
		})
	}
}

// unsandboxed is the sandbox of the tests of the process group, the second
// line of defence: none, since under bwrap $$ is a PID of the agent's own
// namespace.
var unsandboxed = Sandbox{Mode: SandboxNone}

// TestExecAgentKilledAtTimeout: an agent that ignores stop and sleeps, with
// a child of its own, is killed with its whole process group, and nothing
// of the group is left once Run returns.
func TestExecAgentKilledAtTimeout(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := `read s; trap '' TERM INT; sleep 300 & echo $$ > pgid; while :; do sleep 1; done`
	o := execRun(t, ExecConfig{Command: script, Dir: dir, Grace: 200 * time.Millisecond, Sandbox: unsandboxed}, Config{Timeout: 500 * time.Millisecond})
	if o.Result.TerminationReason != Timeout {
		t.Fatalf("termination = %s, error %q", o.Result.TerminationReason, errorText(o.Result))
	}
	b, err := os.ReadFile(filepath.Join(dir, "pgid"))
	if err != nil {
		t.Fatalf("the agent wrote no pgid: %v", err)
	}
	pgid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pgid <= 1 {
		t.Fatalf("pgid %q: %v", b, err)
	}
	if err := syscall.Kill(-pgid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("kill(-%d, 0) = %v after Run returned; want ESRCH: a process of the agent's group is left", pgid, err)
	}
}

// TestExecAgentStopMessage: a stopped agent is told why, and may exit by
// itself within the grace period; its stderr reaches the trace.
func TestExecAgentStopMessage(t *testing.T) {
	t.Parallel()
	o := execRun(t, helperExec(t, "until-stop"), Config{MaxToolCalls: 3})
	if o.Result.TerminationReason != MaxToolCalls || o.Result.ToolCalls != 3 {
		t.Fatalf("termination %s after %d calls, error %q", o.Result.TerminationReason, o.Result.ToolCalls, errorText(o.Result))
	}
	events := traceEvents(t, o.Artifacts.Trace, "agent_stderr")
	if len(events) != 1 || events[0]["stderr"] != "got stop: max_tool_calls\n" {
		t.Errorf("agent_stderr events = %v", events)
	}
}

// TestExecAgentLeftovers: an agent that lingers after its output, or leaves
// a child holding stdout, completes, and its group is killed.
func TestExecAgentLeftovers(t *testing.T) {
	t.Parallel()
	const out = `echo '{"type":"output","output":"done"}'`
	for name, script := range map[string]string{
		"lingers":             `read s; ` + out + `; echo $$ > pgid; sleep 300`,
		"child holds stdout":  `read s; sleep 300 & echo $$ > pgid; ` + out,
		"no trailing newline": `read s; echo $$ > pgid; printf '{"type":"output","output":"done"}'`,
		"never reads stdin":   `echo $$ > pgid; ` + out,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			o := execRun(t, ExecConfig{Command: script, Dir: dir, Grace: 200 * time.Millisecond, Sandbox: unsandboxed}, Config{})
			if o.Result.TerminationReason != Completed || string(o.Result.AgentOutput) != `"done"` {
				t.Fatalf("termination %s, output %s, error %q", o.Result.TerminationReason, o.Result.AgentOutput, errorText(o.Result))
			}
			b, _ := os.ReadFile(filepath.Join(dir, "pgid"))
			pgid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
			if pgid <= 1 {
				t.Fatalf("pgid %q", b)
			}
			if err := syscall.Kill(-pgid, 0); !errors.Is(err, syscall.ESRCH) {
				t.Errorf("kill(-%d, 0) = %v; want ESRCH", pgid, err)
			}
		})
	}
}

func TestExecAgentStderrInTrace(t *testing.T) {
	t.Parallel()
	script := `read s; echo 'thinking…' >&2; head -c 100000 /dev/zero | tr '\0' e >&2; echo tail >&2; echo '{"type":"output","output":"done"}'`
	o := execRun(t, ExecConfig{Command: script, MaxStderrBytes: 1000}, Config{})
	events := traceEvents(t, o.Artifacts.Trace, "agent_stderr")
	if len(events) != 1 {
		t.Fatalf("agent_stderr events: %v", events)
	}
	text, _ := events[0]["stderr"].(string)
	if len(text) != 1000 || !strings.HasSuffix(text, "eeetail\n") || events[0]["droppedBytes"] != float64(100000+len("thinking…\n")+5-1000) {
		t.Errorf("agent_stderr = %.40q… (%d bytes), droppedBytes %v", text, len(text), events[0]["droppedBytes"])
	}
	// the stderr event comes before agent_output
	trace := string(o.Artifacts.Trace)
	if strings.Index(trace, `"agent_stderr"`) > strings.Index(trace, `"agent_output"`) {
		t.Error("agent_stderr is traced after agent_output")
	}
}

// TestExecAgentEnvironment: the agent sees PATH, HOME and the variables it
// is given, nothing else of the runner's environment.
func TestExecAgentEnvironment(t *testing.T) {
	t.Setenv("ORACLE_TEST_SECRET", "s3cret")
	script := `read s; printf '{"type":"output","output":"%s %s"}\n' "${ORACLE_TEST_SECRET-unset}" "${PATH:+path}"`
	tests := []struct {
		env  []string
		want string
	}{
		{nil, `"unset path"`},
		{[]string{"ORACLE_TEST_SECRET"}, `"s3cret path"`},
		{[]string{"ORACLE_TEST_SECRET=given"}, `"given path"`},
		{[]string{"ORACLE_TEST_NOT_SET_ANYWHERE"}, `"unset path"`},
	}
	for _, tt := range tests {
		o := execRun(t, ExecConfig{Command: script, Env: tt.env}, Config{})
		if got := string(o.Result.AgentOutput); got != tt.want {
			t.Errorf("Env %v: output %s, want %s (error %q)", tt.env, got, tt.want, errorText(o.Result))
		}
	}
	o := execRun(t, ExecConfig{Command: `read s; printf '{"type":"output","output":"%s"}\n' "$(env | cut -d= -f1 | sort | tr '\n' ' ')"`}, Config{})
	for _, name := range strings.Fields(outputText(o.Result.AgentOutput)) {
		switch name {
		case "PATH", "HOME", "PWD", "SHLVL", "OLDPWD", "_":
		default:
			t.Errorf("the agent sees %s, which it was not given", name)
		}
	}
}

// TestExecAgentWorkingFolder: each rollout gets a fresh folder of its own,
// removed afterwards.
func TestExecAgentWorkingFolder(t *testing.T) {
	t.Parallel()
	script := `read s; test -z "$(ls -A)" && touch mine && printf '{"type":"output","output":"%s"}\n' "$PWD"`
	o := execRun(t, ExecConfig{Command: script}, Config{})
	dir := outputText(o.Result.AgentOutput)
	if o.Result.TerminationReason != Completed || dir == "" {
		t.Fatalf("termination %s, output %s, error %q", o.Result.TerminationReason, o.Result.AgentOutput, errorText(o.Result))
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("working folder %s is left behind (stat: %v)", dir, err)
	}
}

// TestAgentLog: an agent's events reach the trace; the runner's own types
// are reserved.
func TestAgentLog(t *testing.T) {
	t.Parallel()
	agent := env.AgentFunc(func(ctx context.Context, in env.AgentInput) (any, error) {
		in.Log("agent_note", map[string]any{"b": 2, "a": "x", "seq": 99})
		in.Log("tool_call", map[string]any{"tool": "fake"})
		return "done", nil
	})
	o := run(t, newToy(t, toyVerifier(setToFive), nil), agent, Config{})
	lines := strings.Split(string(o.Artifacts.Trace), "\n")
	if !strings.Contains(lines[1], `"type":"agent_note","at":`) || !strings.HasSuffix(lines[1], `,"a":"x","b":2}`) {
		t.Errorf("agent_note event = %s", lines[1])
	}
	if !strings.Contains(lines[2], `"type":"agent_log"`) || !strings.Contains(lines[2], `"event":"tool_call","tool":"fake"`) {
		t.Errorf("reserved event = %s", lines[2])
	}
	if got := len(traceEvents(t, o.Artifacts.Trace, "tool_call")); got != 0 {
		t.Errorf("%d tool_call events; an agent must not forge one", got)
	}
}
