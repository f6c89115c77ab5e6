package command_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agent-oracle/oracle/command"
	"github.com/agent-oracle/oracle/fixtures"
)

// TestStreamedReportsNameTheBinary: the JUnit and HTML reports written
// from the cases as they end name this binary's commands, as the whole
// report does; the two differ only in the JUnit cases' times.
func TestStreamedReportsNameTheBinary(t *testing.T) {
	dir := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		command.Run(context.Background(), append([]string{"mybin", "-C", dir}, args...), fixtures.All, &out, &errOut, command.WithName("mybin"))
		return out.String()
	}
	run("record", "--env", "crm", "--task", "TASK-002", "--task", "TASK-003")
	// an unreadable baseline: its error, which the library words, names a
	// command
	result := filepath.Join(dir, ".silo", "baselines", "crm", "solver", "TASK-003.result.json")
	if err := os.WriteFile(result, []byte("{\"reward\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	times := regexp.MustCompile(` time="[0-9.]+"`)
	for _, format := range []string{"junit", "html"} {
		sel := []string{"check", "--format", format, "--env", "crm", "--task", "TASK-00[234]"}
		streamed := run(sel...)
		whole := run(append(sel, "--report-dir", filepath.Join(dir, "rd-"+format))...)
		if a, b := times.ReplaceAllString(streamed, ""), times.ReplaceAllString(whole, ""); a != b {
			t.Errorf("%s streamed:\n%s\nwhole:\n%s", format, a, b)
		}
		for _, want := range []string{"run mybin record to freeze it", "or run mybin record to write it again"} {
			if !strings.Contains(streamed, want) {
				t.Errorf("the %s report lacks %q:\n%s", format, want, streamed)
			}
		}
		if strings.Contains(streamed, "oracle record") {
			t.Errorf("the %s report names oracle's commands:\n%s", format, streamed)
		}
	}
}
