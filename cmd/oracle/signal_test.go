//go:build unix

package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSignalsStopLikeInterrupt sends each signal that ends a Go program
// from outside, SIGINT, SIGTERM (a CI cancel, timeout(1)), SIGHUP, SIGQUIT
// (Ctrl-\) and SIGABRT (a watchdog), to a real oracle process while an exec
// agent runs: each cancels the command, which exits 2 and leaves neither
// the agent's process nor its temporary folder behind.
func TestSignalsStopLikeInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("each signal stops a record of its own, which is slow; go test -short leaves it out")
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGABRT} {
		t.Run(sig.String(), func(t *testing.T) {
			dir, tmp := t.TempDir(), t.TempDir()
			pidFile := filepath.Join(dir, "agent.pid")
			script := filepath.Join(dir, "agent.sh")
			if err := os.WriteFile(script, []byte("echo $$ > "+pidFile+".tmp && mv "+pidFile+".tmp "+pidFile+"\nexec sleep 300\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			{
				args := []string{"run", "--env", "crm", "--task", "TASK-002"}
				cmd := exec.Command(os.Args[0], append([]string{"oracle", "-C", dir}, append(args, "--sandbox", "none", "--timeout", "5m", "--agent", "exec:/bin/sh "+script)...)...)
				cmd.Env = append(os.Environ(), runMainEnv+"=1", "NO_COLOR=1", "TMPDIR="+tmp)
				var stderr strings.Builder
				cmd.Stderr = &stderr
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				pid := waitForPID(t, pidFile, cmd)
				if len(agentFolders(t, tmp)) == 0 {
					t.Fatal("the exec agent has no temporary folder under TMPDIR")
				}
				signalAndWait(t, cmd, sig, &stderr)
				if alive(pid) {
					syscall.Kill(pid, syscall.SIGKILL)
					t.Errorf("after %v the agent (pid %d) still runs", sig, pid)
				}
				if left := agentFolders(t, tmp); len(left) > 0 {
					t.Errorf("after %v the agent's temporary folders remain: %v", sig, left)
				}
			}
		})
	}
}

// signalAndWait sends sig to the oracle process cmd and waits for it to
// end, at most a minute; it must exit with status 2.
func signalAndWait(t *testing.T, cmd *exec.Cmd, sig syscall.Signal, stderr *strings.Builder) {
	t.Helper()
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		t.Fatalf("oracle still runs a minute after %v", sig)
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 {
		t.Errorf("after %v: %v, want exit status 2; stderr:\n%s", sig, err, stderr.String())
	}
}

// waitForPID waits until the agent wrote its pid, or oracle ended.
func waitForPID(t *testing.T, path string, cmd *exec.Cmd) int {
	t.Helper()
	for range 600 {
		if data, err := os.ReadFile(path); err == nil {
			os.Remove(path)
			pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
			if err != nil {
				t.Fatal(err)
			}
			return pid
		}
		time.Sleep(100 * time.Millisecond)
	}
	cmd.Process.Kill()
	t.Fatal("the exec agent never started")
	return 0
}

// alive reports whether the process pid runs (a zombie does not), giving
// it a few seconds to be reaped.
func alive(pid int) bool {
	for range 50 {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil && syscall.Kill(pid, 0) != nil {
			return false
		}
		if err == nil {
			if f := strings.Fields(string(stat)); len(f) > 2 && f[2] == "Z" {
				return false
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return true
}

func agentFolders(t *testing.T, tmp string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(tmp, "oracle-agent-*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}
