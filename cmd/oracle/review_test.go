//go:build unix

package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// oracleCmd is the oracle command in the project at dir, run by the test
// binary (see TestMain).
func oracleCmd(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], append([]string{"oracle", "-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), runMainEnv+"=1", "NO_COLOR=1")
	return cmd
}

// syncBuffer collects a terminal's output.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestReviewOnATerminal drives oracle review through a pseudo-terminal: it
// accepts the first pending case, rejects the second, skips the third, and
// checks the store and the pending folder.
func TestReviewOnATerminal(t *testing.T) {
	dir := t.TempDir()
	tasks := []string{"--env", "crm", "--task", "TASK-004", "--task", "TASK-005", "--task", "TASK-006"}
	if out, err := oracleCmd(dir, append([]string{"record"}, tasks...)...).CombinedOutput(); err != nil {
		t.Fatalf("record: %v\n%s", err, out)
	}
	base := filepath.Join(dir, ".silo", "baselines", "crm", "solver")
	pending := filepath.Join(dir, ".silo", "pending", "crm", "solver")
	edit := func(task, old, fresh string) {
		path := filepath.Join(base, task+".result.json")
		data, err := os.ReadFile(path)
		if err != nil || !bytes.Contains(data, []byte(old)) {
			t.Fatalf("%s: %v, or no %q in it", path, err, old)
		}
		if err := os.WriteFile(path, bytes.Replace(data, []byte(old), []byte(fresh), 1), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	edit("TASK-004", `"verdict": "pass"`, `"verdict": "fail"`)
	edit("TASK-005", `"reward": 1`, `"reward": 0.5`)
	edit("TASK-006", `"reward": 1`, `"reward": 0.25`)
	if out, err := oracleCmd(dir, append([]string{"check", "--pending"}, tasks...)...).CombinedOutput(); err == nil || !strings.Contains(string(out), "pending: 3 cases") {
		t.Fatalf("check --pending: %v\n%s", err, out)
	}

	text := answerReview(t, dir, "a", "r", "s")
	for _, want := range []string{
		"changed          crm/solver/TASK-004  improvement (fail → pass); reward 1",
		"~ /verdict: \"fail\" → \"pass\"",
		"accepted  crm/solver/TASK-004: wrote result.json",
		"changed          crm/solver/TASK-005  verdict pass, as before; reward 0.5 → 1",
		"rejected  crm/solver/TASK-005",
		"skipped   crm/solver/TASK-006",
		"1 accepted, 1 rejected, 1 skipped (still pending)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("review output lacks %q:\n%s", want, text)
		}
	}
	read := func(path string) string {
		data, err := os.ReadFile(path)
		if err != nil {
			return ""
		}
		return string(data)
	}
	if !strings.Contains(read(filepath.Join(base, "TASK-004.result.json")), `"verdict": "pass"`) {
		t.Error("accepted TASK-004: its baseline was not written")
	}
	if !strings.Contains(read(filepath.Join(base, "TASK-005.result.json")), `"reward": 0.5`) {
		t.Error("rejected TASK-005: its baseline changed")
	}
	if !strings.Contains(read(filepath.Join(base, "TASK-006.result.json")), `"reward": 0.25`) {
		t.Error("skipped TASK-006: its baseline changed")
	}
	for task, want := range map[string]bool{"TASK-004": false, "TASK-005": false, "TASK-006": true} {
		if _, err := os.Stat(filepath.Join(pending, task+".result.json")); (err == nil) != want {
			t.Errorf("%s pending: %v, want pending %v", task, err, want)
		}
	}
}

// answerReview runs oracle review in the project at dir on a
// pseudo-terminal, gives each prompt the next answer, and returns what it
// printed once it has exited. It skips where there is no pseudo-terminal.
func answerReview(t *testing.T, dir string, answers ...string) string {
	t.Helper()
	cmd := oracleCmd(dir, "review")
	tty, err := pty.Start(cmd)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer tty.Close()
	var out syncBuffer
	copied := make(chan struct{})
	go func() {
		io.Copy(&out, tty) // ends when the terminal closes with the process
		close(copied)
	}()
	const prompt = "[a]ccept [r]eject [s]kip [A]ccept all remaining [q]uit: "
	// waitFor waits until the output holds n prompts; the deadline only
	// keeps a broken review from hanging the test.
	waitFor := func(n int) {
		t.Helper()
		deadline := time.Now().Add(2 * time.Minute)
		for strings.Count(out.String(), prompt) < n {
			if time.Now().After(deadline) {
				t.Fatalf("no prompt %d; output:\n%s", n, out.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	for i, answer := range answers {
		waitFor(i + 1)
		if _, err := tty.WriteString(answer + "\n"); err != nil {
			t.Fatal(err)
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("review: %v\n%s", err, out.String())
	}
	select {
	case <-copied:
	case <-time.After(time.Minute):
		t.Fatalf("the terminal did not close; output:\n%s", out.String())
	}
	return out.String()
}
