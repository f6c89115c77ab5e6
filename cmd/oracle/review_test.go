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

// The questions review asks.
const (
	reviewPrompt  = "[a]ccept [r]eject [s]kip [A]ccept all remaining [q]uit: "
	reviewConfirm = "Accept this regression? [y/N]: "
)

// replaceIn replaces the first old in the file at path by fresh.
func replaceIn(t *testing.T, path, old, fresh string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil || !bytes.Contains(data, []byte(old)) {
		t.Fatalf("%s: %v, or no %q in it", path, err, old)
	}
	if err := os.WriteFile(path, bytes.Replace(data, []byte(old), []byte(fresh), 1), 0o644); err != nil {
		t.Fatal(err)
	}
}

// reviewTerm is oracle review running on a pseudo-terminal.
type reviewTerm struct {
	t      *testing.T
	cmd    *exec.Cmd
	tty    *os.File
	out    syncBuffer
	copied chan struct{}
}

// startReview starts oracle review in the project at dir on a
// pseudo-terminal, or skips the test when there is none.
func startReview(t *testing.T, dir string) *reviewTerm {
	t.Helper()
	r := &reviewTerm{t: t, cmd: oracleCmd(dir, "review"), copied: make(chan struct{})}
	tty, err := pty.Start(r.cmd)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	r.tty = tty
	t.Cleanup(func() { tty.Close() })
	go func() {
		io.Copy(&r.out, tty) // ends when the terminal closes with the process
		close(r.copied)
	}()
	return r
}

// answer waits until the output holds exactly prompts prompts and
// confirms confirmations, then types the answer and Enter; the deadline
// only keeps a broken review from hanging the test.
func (r *reviewTerm) answer(prompts, confirms int, answer string) {
	r.t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for strings.Count(r.out.String(), reviewPrompt) != prompts || strings.Count(r.out.String(), reviewConfirm) != confirms {
		if time.Now().After(deadline) {
			r.t.Fatalf("no prompt %d and confirmation %d; output:\n%s", prompts, confirms, r.out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := r.tty.WriteString(answer + "\n"); err != nil {
		r.t.Fatal(err)
	}
}

// wait waits for review to end and returns all it wrote.
func (r *reviewTerm) wait() string {
	r.t.Helper()
	if err := r.cmd.Wait(); err != nil {
		r.t.Fatalf("review: %v\n%s", err, r.out.String())
	}
	select {
	case <-r.copied:
	case <-time.After(time.Minute):
		r.t.Fatalf("the terminal did not close; output:\n%s", r.out.String())
	}
	return r.out.String()
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
	edit := func(task, old, fresh string) { replaceIn(t, filepath.Join(base, task+".result.json"), old, fresh) }
	edit("TASK-004", `"verdict": "pass"`, `"verdict": "fail"`)
	edit("TASK-005", `"reward": 1`, `"reward": 0.5`)
	edit("TASK-006", `"reward": 1`, `"reward": 0.25`)
	if out, err := oracleCmd(dir, append([]string{"check", "--pending"}, tasks...)...).CombinedOutput(); err == nil || !strings.Contains(string(out), "pending: 3 cases") {
		t.Fatalf("check --pending: %v\n%s", err, out)
	}

	r := startReview(t, dir)
	for i, answer := range []string{"a", "r", "s"} {
		r.answer(i+1, 0, answer)
	}
	text := r.wait()
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

// TestReviewConfirmsARegression drives oracle review through a
// pseudo-terminal over pending cases that would stop passing: accepting
// one asks a second time (with A too), only y accepts it, and a pending
// case that already equals its baseline is dropped first, saying so.
func TestReviewConfirmsARegression(t *testing.T) {
	dir := t.TempDir()
	tasks := []string{"--env", "crm", "--task", "TASK-00[2-7]"}
	if out, err := oracleCmd(dir, append([]string{"record"}, tasks...)...).CombinedOutput(); err != nil {
		t.Fatalf("record: %v\n%s", err, out)
	}
	base := filepath.Join(dir, ".silo", "baselines", "crm", "solver")
	pending := filepath.Join(dir, ".silo", "pending", "crm", "solver")
	edit := func(path, old, fresh string) { replaceIn(t, path, old, fresh) }
	for _, task := range []string{"TASK-002", "TASK-003", "TASK-004", "TASK-005", "TASK-006", "TASK-007"} {
		edit(filepath.Join(base, task+".result.json"), `"reward": 1`, `"reward": 0.5`)
	}
	if out, err := oracleCmd(dir, append([]string{"check", "--pending"}, tasks...)...).CombinedOutput(); err == nil || !strings.Contains(string(out), "pending: 6 cases") {
		t.Fatalf("check --pending: %v\n%s", err, out)
	}
	// TASK-002's pending artifacts are its baseline's again; TASK-003 to
	// TASK-006 no longer pass; TASK-007 still passes
	edit(filepath.Join(base, "TASK-002.result.json"), `"reward": 0.5`, `"reward": 1`)
	for _, task := range []string{"TASK-003", "TASK-004", "TASK-005", "TASK-006"} {
		edit(filepath.Join(pending, task+".result.json"), `"verdict": "pass"`, `"verdict": "fail"`)
	}

	r := startReview(t, dir)
	for _, step := range []struct {
		prompts, confirms int
		answer            string
	}{
		{1, 0, "a"},   // TASK-003
		{1, 1, "y"},   // accepted
		{2, 1, "a"},   // TASK-004
		{2, 2, "n"},   // not confirmed: skipped
		{3, 2, "A"},   // TASK-005, and all remaining
		{3, 3, "yes"}, // accepted
		{3, 4, ""},    // TASK-006 asks again, with A: Enter keeps it pending; TASK-007 is accepted unasked
	} {
		r.answer(step.prompts, step.confirms, step.answer)
	}
	text := r.wait()
	for _, want := range []string{
		"dropped   crm/solver/TASK-002: what was pending already is the baseline",
		"[1/5]",
		"changed          crm/solver/TASK-003  regression (pass → fail); reward 0.5 → 1",
		"crm/solver/TASK-003 is a regression: its verdict goes from pass to fail. " + reviewConfirm,
		"accepted  crm/solver/TASK-003: wrote result.json; regression: pass → fail",
		"skipped   crm/solver/TASK-004: the regression was not confirmed",
		"accepted  crm/solver/TASK-005: wrote result.json; regression: pass → fail",
		"skipped   crm/solver/TASK-006: the regression was not confirmed",
		"accepted  crm/solver/TASK-007: wrote result.json",
		"3 accepted, 0 rejected, 2 skipped (still pending), 1 dropped (already the baseline)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("review output lacks %q:\n%s", want, text)
		}
	}
	if strings.Count(text, reviewConfirm) != 4 {
		t.Errorf("review asked %d confirmations, want 4 (TASK-003 to TASK-006, not TASK-007):\n%s", strings.Count(text, reviewConfirm), text)
	}
	for task, want := range map[string]bool{"TASK-002": false, "TASK-003": false, "TASK-004": true, "TASK-005": false, "TASK-006": true, "TASK-007": false} {
		if _, err := os.Stat(filepath.Join(pending, task+".result.json")); (err == nil) != want {
			t.Errorf("%s pending: %v, want pending %v", task, err, want)
		}
	}
	for task, want := range map[string]string{
		"TASK-002": `"reward": 1`, "TASK-003": `"verdict": "fail"`, "TASK-004": `"reward": 0.5`,
		"TASK-005": `"verdict": "fail"`, "TASK-006": `"reward": 0.5`, "TASK-007": `"reward": 1`,
	} {
		data, err := os.ReadFile(filepath.Join(base, task+".result.json"))
		if err != nil || !strings.Contains(string(data), want) {
			t.Errorf("baseline of %s: %v, or no %s in it", task, err, want)
		}
	}
	data, _ := os.ReadFile(filepath.Join(base, "TASK-004.result.json"))
	if !strings.Contains(string(data), `"verdict": "pass"`) {
		t.Error("TASK-004's regression was not confirmed, yet its baseline no longer passes")
	}
}
