//go:build unix

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestReviewHost reviews, on a terminal, the change a mutated formula of a
// Python environment made: the diff is shown, and accepting it makes it
// the baseline, which check then finds unchanged.
func TestReviewHost(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	if nodeVersion() < 20 {
		t.Skip("node 20 or newer is not installed (the solver is a Node module)")
	}
	dir := t.TempDir()
	folder := filepath.Join(dir, ".silo", "environments", "tickets")
	if err := copyDir(filepath.Join("..", "..", "fixtures", "py", "tickets"), folder); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, error) {
		out, err := oracleCmd(dir, args...).CombinedOutput()
		return string(out), err
	}
	if out, err := run("record", "--task", "TASK-002"); err != nil {
		t.Fatalf("record: %v\n%s", err, out)
	}
	src := filepath.Join(folder, "env.py")
	data, err := os.ReadFile(src)
	if err != nil || !bytes.Contains(data, []byte(`"high": 8,`)) {
		t.Fatalf("%s: %v", src, err)
	}
	if err := os.WriteFile(src, bytes.Replace(data, []byte(`"high": 8,`), []byte(`"high": 9,`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := run("check", "--task", "TASK-002", "--pending"); err == nil || !strings.Contains(out, "pending: 1 case") {
		t.Fatalf("check --pending: %v\n%s", err, out)
	}
	text := startReview(t, dir).answerEach("a")
	for _, want := range []string{"changed          tickets/solver/TASK-002  verdict pass, as before; reward 1", "TCK-101", "accepted  tickets/solver/TASK-002"} {
		if !strings.Contains(text, want) {
			t.Errorf("review output lacks %q:\n%s", want, text)
		}
	}
	if out, err := run("check", "--task", "TASK-002"); err != nil || !strings.Contains(out, "1 case: 1 unchanged") {
		t.Errorf("check after the review: %v\n%s", err, out)
	}
}
