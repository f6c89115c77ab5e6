//go:build unix

package command_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-oracle/oracle/command"
	"github.com/agent-oracle/oracle/fixtures"
	"github.com/creack/pty"
)

// viewOnATerminal runs oracle view with stdout a terminal and returns its
// exit code, what the terminal showed and stderr.
func viewOnATerminal(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no terminal to test with: %v", err)
	}
	defer ptmx.Close()
	shown := make(chan string)
	go func() {
		var buf bytes.Buffer
		io.Copy(&buf, ptmx) // until the terminal is closed
		shown <- buf.String()
	}()
	var stderr bytes.Buffer
	code := command.Run(context.Background(), append([]string{"oracle", "-C", dir, "view"}, args...), fixtures.All, tty, &stderr)
	tty.Close()
	return code, strings.ReplaceAll(<-shown, "\r\n", "\n"), stderr.String()
}

// TestViewOnATerminal: with neither --out nor --serve and stdout a
// terminal, the page is written to view.html in the run folder and its
// path shown (no page on the terminal), again over the first; a case of a
// report folder is left alone, and the user told what to give.
func TestViewOnATerminal(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := oracleRun(t, dir, "run", "--env", "crm", "--task", "TASK-002"); code != 0 {
		t.Fatalf("run: %s", stderr)
	}
	runs, _ := filepath.Glob(filepath.Join(dir, ".silo", "runs", "run_*"))
	for range 2 {
		code, shown, stderr := viewOnATerminal(t, dir, runs[0])
		page := filepath.Join(runs[0], command.ViewFile)
		if code != 0 || shown != "page: "+page+"\n" || stderr != "" {
			t.Fatalf("exit %d, terminal %q, stderr %q", code, shown, stderr)
		}
		data, err := os.ReadFile(page)
		if err != nil || !bytes.HasPrefix(data, []byte("<!DOCTYPE html>")) {
			t.Fatalf("%s: %v %.40q", page, err, data)
		}
	}
	// a symlink where view.html goes is not written through
	secret := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(secret, []byte("secret"), 0o644)
	os.Remove(filepath.Join(runs[0], command.ViewFile))
	os.Symlink(secret, filepath.Join(runs[0], command.ViewFile))
	if code, _, stderr := viewOnATerminal(t, dir, runs[0]); code != 2 || !strings.Contains(stderr, "view.html: is a symlink; oracle writes through no link: remove it") {
		t.Errorf("a symlinked view.html: exit %d, %q", code, stderr)
	}
	if data, _ := os.ReadFile(secret); string(data) != "secret" {
		t.Error("written through the symlink")
	}

	if code, _, stderr := oracleRun(t, dir, "record", "--env", "crm", "--task", "TASK-004"); code != 0 {
		t.Fatalf("record: %s", stderr)
	}
	result := filepath.Join(dir, ".silo", "baselines", "crm", "solver", "TASK-004.result.json")
	data, _ := os.ReadFile(result)
	os.WriteFile(result, bytes.Replace(data, []byte(`"verdict": "pass"`), []byte(`"verdict": "fail"`), 1), 0o644)
	report := filepath.Join(t.TempDir(), "report")
	oracleRun(t, dir, "check", "--env", "crm", "--task", "TASK-004", "--report-dir", report)
	// check wrote the case's page (TASK-004.view.html); view writes nothing
	checked, _ := filepath.Glob(filepath.Join(report, "fresh", "crm", "solver", "*"))
	code, shown, stderr := viewOnATerminal(t, dir, report, "crm/solver/TASK-004")
	if code != 2 || shown != "" || !strings.Contains(stderr, "is a case, and oracle writes nothing beside a case's files; give --out FILE, --out - (stdout) or --serve PORT\n") {
		t.Errorf("a case on a terminal: exit %d, terminal %q, stderr %q", code, shown, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(report, "fresh", "crm", "solver", "*"))
	for _, f := range files {
		if strings.HasSuffix(f, ".html") && !slices.Contains(checked, f) {
			t.Errorf("%s written beside the case", f)
		}
	}
	// the baseline store is a case too, and is not written to either
	if code, _, _ := viewOnATerminal(t, dir, filepath.Join(dir, ".silo", "baselines"), "crm/solver/TASK-004"); code != 2 {
		t.Errorf("a baseline on a terminal: exit %d", code)
	}
	if code, _, stderr := oracleRun(t, dir, "view", "-o", "-", filepath.Join(dir, ".silo", "baselines", "crm", "solver", "TASK-004")); code != 0 {
		t.Errorf("a baseline to stdout: exit %d: %s", code, stderr)
	}
}
