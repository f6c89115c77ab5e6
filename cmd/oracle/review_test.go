//go:build unix

package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
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
	return startOnTerminal(t, oracleCmd(dir, "review"))
}

// startOnTerminal starts cmd (an oracle review) on a pseudo-terminal, or
// skips the test when there is none.
func startOnTerminal(t *testing.T, cmd *exec.Cmd) *reviewTerm {
	t.Helper()
	r := &reviewTerm{t: t, cmd: cmd, copied: make(chan struct{})}
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
// confirms confirmations, then types the answer's keys, no Enter (review
// reads one key each on a terminal); the deadline only keeps a broken
// review from hanging the test.
func (r *reviewTerm) answer(prompts, confirms int, answer string) {
	r.t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for strings.Count(r.out.String(), reviewPrompt) != prompts || strings.Count(r.out.String(), reviewConfirm) != confirms {
		if time.Now().After(deadline) {
			r.t.Fatalf("no prompt %d and confirmation %d; output:\n%s", prompts, confirms, r.out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := r.tty.WriteString(answer); err != nil {
		r.t.Fatal(err)
	}
}

// wait waits for review to end and returns all it wrote.
func (r *reviewTerm) wait() string {
	r.t.Helper()
	return r.ended(r.cmd.Wait())
}

// ended is what review wrote once it has exited with err.
func (r *reviewTerm) ended(err error) string {
	r.t.Helper()
	if err != nil {
		r.t.Fatalf("review: %v\n%s", err, r.out.String())
	}
	select {
	case <-r.copied:
	case <-time.After(time.Minute):
		r.t.Fatalf("the terminal did not close; output:\n%s", r.out.String())
	}
	return r.out.String()
}

// answerEach answers every prompt of review with answer until it ends, and
// returns all it wrote; the deadline only keeps a broken review from
// hanging the test.
func (r *reviewTerm) answerEach(answer string) string {
	r.t.Helper()
	done := make(chan error, 1)
	go func() { done <- r.cmd.Wait() }()
	deadline := time.After(2 * time.Minute)
	for answered := 0; ; {
		select {
		case err := <-done:
			return r.ended(err)
		case <-deadline:
			r.t.Fatalf("review did not end; output:\n%s", r.out.String())
		case <-time.After(20 * time.Millisecond):
			if n := strings.Count(r.out.String(), reviewPrompt); n > answered {
				if _, err := r.tty.WriteString(answer); err != nil {
					r.t.Fatal(err)
				}
				answered++
			}
		}
	}
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
		"(said above: /verdict)",
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
		{1, 0, "a"},  // TASK-003
		{1, 1, "y"},  // accepted
		{2, 1, "a"},  // TASK-004
		{2, 2, "n"},  // not confirmed: skipped
		{3, 2, "A"},  // TASK-005, and all remaining
		{3, 3, "Y"},  // accepted
		{3, 4, "\r"}, // TASK-006 asks again, with A: Enter keeps it pending; TASK-007 is accepted unasked
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

// TestReviewShowsHostileTextOnATerminal drives oracle review, in colour,
// through a pseudo-terminal on a pending case whose answer, check detail
// and tool name hold terminal escapes (clear the screen, OSC 52 to the
// clipboard, a carriage return, a right-to-left override) and workflow
// commands after a newline: the terminal receives no control byte but the
// line ends and colour codes, each hostile character is shown as its
// escape on a line the review wrote, and the word diff is struck through
// and underlined as well as coloured.
func TestReviewShowsHostileTextOnATerminal(t *testing.T) {
	dir := t.TempDir()
	if out, err := oracleCmd(dir, "record", "--env", "crm", "--task", "TASK-004").CombinedOutput(); err != nil {
		t.Fatalf("record: %v\n%s", err, out)
	}
	base := filepath.Join(dir, ".silo", "baselines", "crm", "solver")
	pending := filepath.Join(dir, ".silo", "pending", "crm", "solver")
	if err := os.MkdirAll(pending, 0o755); err != nil {
		t.Fatal(err)
	}
	hostile := `\u001b[2J\u001b[H\u001b]52;c;ZXZpbA==\u0007 ok\rFAKE \u202egnp.exe\n::error file=a.go::pwned\n##vso[task.complete result=Succeeded]`
	for _, f := range []struct{ name, old, fresh string }{
		{"result.json", `is $479,659.50 across`, `is ` + hostile + ` across`},
		{"result.json", `"detail": "answered 479659.5, 12, expected 479659.5"`, `"detail": "answered 479659.5, 12, expected 479659.5 ` + hostile + `"`},
		{"calls.json", `"tool": "weighted_pipeline"`, `"tool": "weighted_pipeline` + hostile + `"`},
	} {
		src := filepath.Join(pending, "TASK-004."+f.name)
		data, err := os.ReadFile(src)
		if err != nil {
			data, err = os.ReadFile(filepath.Join(base, "TASK-004."+f.name))
		}
		if err != nil || !bytes.Contains(data, []byte(f.old)) {
			t.Fatalf("%s: %v, or no %q in it", f.name, err, f.old)
		}
		if err := os.WriteFile(src, bytes.Replace(data, []byte(f.old), []byte(f.fresh), 1), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, _ := os.ReadFile(filepath.Join(base, "TASK-004.state-diff.json"))
	os.WriteFile(filepath.Join(pending, "TASK-004.state-diff.json"), data, 0o644)

	cmd := oracleCmd(dir, "review")
	cmd.Env = append(slices.DeleteFunc(cmd.Env, func(v string) bool { return strings.HasPrefix(v, "NO_COLOR=") }), "TERM=xterm-256color")
	raw := startOnTerminal(t, cmd).answerEach("s")
	if !strings.Contains(raw, "\x1b[31;9m") || !strings.Contains(raw, "\x1b[32;4m") {
		t.Errorf("the word diff is not struck through and underlined on a terminal:\n%q", raw)
	}
	text := regexp.MustCompile(`\x1b\[[0-9;]*m`).ReplaceAllString(raw, "")
	text = strings.ReplaceAll(text, "\r\n", "\n") // the terminal's line ends
	for i := 0; i < len(text); i++ {
		if c := text[i]; c < 0x20 && c != '\n' || c == 0x7f {
			t.Fatalf("the terminal got control byte %#x at %d:\n%q", c, i, text)
		}
	}
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		if strings.HasPrefix(trimmed, "::") || strings.HasPrefix(trimmed, "##") || strings.Contains(line, "##vso[") || strings.ContainsRune(line, '\u202e') {
			t.Errorf("the line %q acts on a terminal or a CI log", line)
		}
	}
	for _, want := range []string{
		`\x1b[2J\x1b[H\x1b]52;c;ZXZpbA==\a ok\rFAKE \u202egnp.exe\n::error file=a.go::pwned\n#\x23vso[task.complete result=Succeeded]`,
		`checks:`,
		`✓ "The reported weighted total is correct" (required): passed, as before; "answered 479659.5, 12, expected 479659.5`,
		`weighted_pipeline\x1b[2J`,
		"skipped   crm/solver/TASK-004",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("review output lacks %q:\n%s", want, text)
		}
	}
}
