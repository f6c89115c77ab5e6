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

	answers := []string{"a", "r", "s"}
	text := reviewOnTerminal(t, oracleCmd(dir, "review"), func(i int) string { return answers[min(i, len(answers)-1)] })
	for _, want := range []string{
		"changed          crm/solver/TASK-004  improvement (fail → pass); reward 1",
		"(said above: /verdict)", // the headline says the verdict fail → pass
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
	raw := reviewOnTerminal(t, cmd, func(int) string { return "s" })
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

// reviewOnTerminal runs oracle review (cmd) on a pseudo-terminal, answering
// its i-th prompt (from 0) with answer(i), and returns what the terminal
// showed, the line ends as the terminal wrote them ("\r\n"). It skips the
// test where there is no pseudo-terminal.
func reviewOnTerminal(t *testing.T, cmd *exec.Cmd, answer func(i int) string) string {
	t.Helper()
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
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	const prompt = "[a]ccept [r]eject [s]kip [A]ccept all remaining [q]uit: "
	deadline := time.After(2 * time.Minute) // only keeps a broken review from hanging the test
	for answered := 0; ; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("review: %v\n%s", err, out.String())
			}
			select {
			case <-copied:
			case <-time.After(time.Minute):
				t.Fatalf("the terminal did not close; output:\n%s", out.String())
			}
			return out.String()
		case <-deadline:
			t.Fatalf("review did not end; output:\n%s", out.String())
		case <-time.After(20 * time.Millisecond):
			if n := strings.Count(out.String(), prompt); n > answered {
				if _, err := tty.WriteString(answer(answered) + "\n"); err != nil {
					t.Fatal(err)
				}
				answered++
			}
		}
	}
}

// answerReview runs oracle review in the project at dir on a
// pseudo-terminal, gives each prompt the next answer (the last one again
// once they run out), and returns what it printed once it has exited.
func answerReview(t *testing.T, dir string, answers ...string) string {
	t.Helper()
	return reviewOnTerminal(t, oracleCmd(dir, "review"), func(i int) string { return answers[min(i, len(answers)-1)] })
}
