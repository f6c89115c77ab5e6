package command_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agent-oracle/oracle/command"
	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/fixtures"
)

type noteState struct {
	Now string `json:"now"`
}

// orphanTask is an environment whose only task names a verifier it does
// not register.
func orphanTask() ([]env.Environment, error) {
	e, err := env.New(env.Definition[noteState]{
		Name: "orphan",
		TaskFiles: fstest.MapFS{"tasks/TASK-001.json": {Data: []byte(
			`{"id":"TASK-001","title":"t","instruction":"i","verifierId":"VER-404"}`)}},
		NewState: func(env.Task) (*noteState, error) { return &noteState{Now: "2026-01-05T09:00:00Z"}, nil },
	})
	return []env.Environment{e}, err
}

func TestValidateExitCodes(t *testing.T) {
	tests := []struct {
		name   string
		envs   command.Environments
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"built-ins are valid", fixtures.All, []string{"validate"}, command.ExitOK, "crm: ok · ", ""},
		{"an error finding", orphanTask, []string{"validate"}, command.ExitChanged,
			"orphan: error verifier_not_found: task TASK-001 names verifier VER-404, which orphan does not register; add it with oracle verifier add VER-404 --env orphan --task TASK-001, or fix the task's verifierId\n", ""},
		{"an error finding in JSON", orphanTask, []string{"validate", "--json"}, command.ExitChanged, `"code": "verifier_not_found"`, ""},
		{"unknown environment", fixtures.All, []string{"validate", "--env", "nope"}, command.ExitTrouble, "", "error: env_not_found: no environment nope"},
		{"an argument", fixtures.All, []string{"validate", "crm"}, command.ExitTrouble, "", "error: usage: validate takes no arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := command.Run(context.Background(), append([]string{"oracle", "--dir", t.TempDir()}, tt.args...), tt.envs, &stdout, &stderr)
			if code != tt.code {
				t.Errorf("exit %d, want %d; stderr %s", code, tt.code, stderr.String())
			}
			if !strings.Contains(stdout.String(), tt.stdout) || tt.stdout == "" && stdout.Len() > 0 {
				t.Errorf("stdout %q, want it to contain %q", stdout.String(), tt.stdout)
			}
			if !strings.Contains(stderr.String(), tt.stderr) || tt.stderr == "" && stderr.Len() > 0 {
				t.Errorf("stderr %q, want it to contain %q", stderr.String(), tt.stderr)
			}
		})
	}
}

// TestScaffoldingExitCodes runs the scaffolding commands in order in one
// project: each creation exits 0, each refusal exits 2.
func TestScaffoldingExitCodes(t *testing.T) {
	project := t.TempDir()
	steps := []struct {
		args []string
		code int
	}{
		{[]string{"task", "add", "TASK-002", "--env", "demo", "--title", "t", "--instruction", "i"}, command.ExitTrouble}, // no manifest yet
		{[]string{"init", "demo"}, command.ExitOK},
		{[]string{"init", "demo"}, command.ExitTrouble},
		{[]string{"task", "add", "TASK-002", "--env", "demo", "--title", "t", "--instruction", "i"}, command.ExitOK},
		{[]string{"task", "add", "TASK-002", "--env", "demo", "--title", "t", "--instruction", "i"}, command.ExitTrouble},
		{[]string{"verifier", "add", "VER-002", "--env", "demo", "--task", "TASK-002"}, command.ExitOK},
		{[]string{"verifier", "add", "VER-002", "--env", "demo", "--task", "TASK-002"}, command.ExitTrouble},
		{[]string{"verifier", "add", "VER-003", "--env", "demo"}, command.ExitTrouble}, // no --task
		{[]string{"tool", "add", "archive_item", "--env", "demo"}, command.ExitOK},
		{[]string{"tool", "add", "archive_item", "--env", "demo"}, command.ExitTrouble},
		{[]string{"tool", "add", "archive_item"}, command.ExitTrouble}, // no --env
	}
	for _, s := range steps {
		code, _, stderr := oracle(t, project, s.args...)
		if code != s.code {
			t.Fatalf("oracle %s: exit %d, want %d; stderr %s", strings.Join(s.args, " "), code, s.code, stderr)
		}
		if lines := strings.Count(stderr, "\n"); code == command.ExitTrouble && lines != 1 {
			t.Errorf("oracle %s: stderr has %d lines, want one: %s", strings.Join(s.args, " "), lines, stderr)
		}
	}
}
