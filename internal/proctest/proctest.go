// Package proctest finds processes for tests that must show none of an
// agent's is left: each process the agent starts carries a marker in its
// environment, and WithEnv lists the processes that still hold it.
package proctest

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// WithEnv returns the PIDs of the processes whose environment (as
// /proc/PID/environ shows it) holds mark. Processes the test may not read
// are not listed; without /proc the test fails.
func WithEnv(t testing.TB, mark string) []int {
	t.Helper()
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatalf("list the processes: %v", err)
	}
	var pids []int
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		if b, err := os.ReadFile(filepath.Join("/proc", d.Name(), "environ")); err == nil && bytes.Contains(b, []byte(mark)) {
			pids = append(pids, pid)
		}
	}
	return pids
}
