package command_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-oracle/oracle/command"
	"github.com/agent-oracle/oracle/env"
)

// noEnvironments serves the scaffolding commands, which read the project's
// files rather than the binary's environments.
func noEnvironments() ([]env.Environment, error) { return nil, nil }

// oracle runs the command line in the project folder dir and returns its
// exit code, stdout and stderr.
func oracle(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := command.Run(context.Background(), append([]string{"oracle", "--dir", dir}, args...), noEnvironments, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// scaffoldedTest is a test written into the scaffolded package: the
// environment validates, its tools work, and every task fails because its
// verifier is not written yet.
const scaffoldedTest = `package demo_test

import (
	"context"
	"testing"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/runner"
	"IMPORT"
)

func TestScaffoldFailsOnPurpose(t *testing.T) {
	e, err := demo.New()
	if err != nil {
		t.Fatal(err)
	}
	if r := env.Validate(e, ""); !r.OK {
		t.Fatalf("validate: %+v", r.Findings)
	}
	tasks, err := e.Tasks()
	if err != nil || len(tasks) != 2 {
		t.Fatalf("tasks = %v, %v; want TASK-001 and TASK-002", tasks, err)
	}
	agent := env.AgentFunc(func(ctx context.Context, in env.AgentInput) (any, error) {
		if r := in.Call(ctx, "complete_item", map[string]string{"id": "ITEM-002"}); r.IsError {
			t.Errorf("complete_item: %s", r.Output)
		}
		if r := in.Call(ctx, "archive_item", map[string]any{}); !r.IsError {
			t.Errorf("archive_item = %s, want a not_implemented error", r.Output)
		}
		return "Marked ITEM-002 done.", nil
	})
	for _, task := range tasks {
		o, err := runner.Run(context.Background(), e, task, agent, runner.Config{})
		if err != nil {
			t.Fatal(err)
		}
		r := o.Result
		if r.Verdict != env.Fail || r.Passed || r.TerminationReason != runner.Completed || r.Error != nil {
			t.Errorf("%s: verdict %s, passed %v, %s, error %v; want a completed run that fails", task.ID, r.Verdict, r.Passed, r.TerminationReason, r.Error)
		}
		if len(r.Checks) != 1 || r.Checks[0].Label != "TODO: define success condition" {
			t.Errorf("%s: checks %+v, want the failing TODO check", task.ID, r.Checks)
		}
		if len(o.Diff.Collections["items"].Changed) != 1 {
			t.Errorf("%s: state diff %+v, want ITEM-002 changed", task.ID, o.Diff)
		}
	}
}
`

// TestScaffoldCompilesAndFails scaffolds an environment with init, tool
// add, verifier add and task add inside this module, then has the go
// command vet it and run a test in it: the package compiles, validates, and
// its scaffolded verifiers fail every run.
func TestScaffoldCompilesAndFails(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	// A folder starting with _ is inside the module but outside ./...
	project, err := os.MkdirTemp(root, "_scaffoldtest")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(project) })

	for _, args := range [][]string{
		{"init", "demo"},
		{"tool", "add", "archive_item", "--env", "demo", "--description", "Archives an item."},
		{"verifier", "add", "VER-002", "--env", "demo", "--task", "TASK-002", "--name", "The report is archived"},
		{"task", "add", "TASK-002", "--env", "demo", "--title", "Archive the report", "--instruction", "Archive the quarterly report."},
	} {
		if code, _, stderr := oracle(t, project, args...); code != command.ExitOK {
			t.Fatalf("oracle %s: exit %d: %s", strings.Join(args, " "), code, stderr)
		}
	}
	rel, err := filepath.Rel(root, filepath.Join(project, "envs", "demo"))
	if err != nil {
		t.Fatal(err)
	}
	pkg := "./" + filepath.ToSlash(rel)
	test := strings.Replace(scaffoldedTest, "IMPORT", "github.com/agent-oracle/oracle/"+filepath.ToSlash(rel), 1)
	if err := os.WriteFile(filepath.Join(project, "envs", "demo", "scaffold_test.go"), []byte(test), 0o644); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, args := range [][]string{{"vet", pkg}, {"test", "-count=1", pkg}} {
		cmd := exec.CommandContext(ctx, goCmd, args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}
