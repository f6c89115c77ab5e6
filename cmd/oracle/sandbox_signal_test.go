//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-oracle/oracle/internal/proctest"
	"github.com/agent-oracle/oracle/runner"
)

// TestSignalStopsTheSandbox sends SIGTERM to a real oracle process while a
// sandboxed exec agent runs with setsid children of its own: oracle exits
// 2, and neither a process of the agent nor its temporary folders remain.
func TestSignalStopsTheSandbox(t *testing.T) {
	if testing.Short() {
		t.Skip("a sandboxed agent's stop is slow; go test -short leaves it out")
	}
	if _, err := runner.BwrapStatus(); err != nil {
		t.Skipf("the sandbox needs bubblewrap: %v", err)
	}
	dir, tmp := t.TempDir(), t.TempDir()
	mark := "oracle-sandbox-signal-" + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	script := filepath.Join(dir, "agent.sh")
	body := "ORACLE_SURVIVOR=" + mark + " setsid sh -c 'trap \"\" TERM HUP; sleep 300' </dev/null >/dev/null 2>&1 &\n" +
		"echo ready > ready\nexec sleep 300\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "oracle", "-C", dir, "run", "--env", "crm", "--task", "TASK-002",
		"--sandbox", "bwrap", "--timeout", "5m", "--agent", "exec:/bin/sh "+script)
	cmd.Env = append(os.Environ(), runMainEnv+"=1", "NO_COLOR=1", "TMPDIR="+tmp)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, pid := range proctest.WithEnv(t, mark) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	// the agent writes ready in its working folder, under TMPDIR
	ready := false
	for range 600 {
		if m, _ := filepath.Glob(filepath.Join(tmp, "oracle-agent-*", "work", "ready")); len(m) > 0 {
			ready = true
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !ready {
		cmd.Process.Kill()
		t.Fatalf("the sandboxed agent never started; stderr:\n%s", stderr.String())
	}
	signalAndWait(t, cmd, syscall.SIGTERM, &stderr)
	if left := proctest.WithEnv(t, mark); len(left) > 0 {
		t.Errorf("processes %v of the sandboxed agent outlived oracle", left)
	}
	if left := agentFolders(t, tmp); len(left) > 0 {
		t.Errorf("the agent's temporary folders remain: %v", left)
	}
}
