package command_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agent-oracle/oracle/command"
	"github.com/agent-oracle/oracle/env"
)

type emptyState struct {
	N int `json:"n"`
}

// agentless is an environment with a task and no agent at all.
func agentless() ([]env.Environment, error) {
	e, err := env.New(env.Definition[emptyState]{
		Name: "bare",
		TaskFiles: fstest.MapFS{"tasks/TASK-001.json": {Data: []byte(
			`{"id":"TASK-001","title":"Count","instruction":"Count.","difficulty":"easy","verifierId":"VER-001"}`)}},
		NewState: func(env.Task) (*emptyState, error) { return &emptyState{}, nil },
		Tools: []env.Tool[emptyState]{{Name: "count", Description: "Counts.", InputSchema: `{"type":"object"}`,
			Run: func(context.Context, *emptyState, json.RawMessage) (any, error) { return 1, nil }}},
		Verifiers: []env.Verifier[emptyState]{{ID: "VER-001", TaskID: "TASK-001", Name: "counted",
			Check: func(final, _ *emptyState, _ env.VerifyContext) []env.CheckResult {
				return []env.CheckResult{env.Check("counted", true, "")}
			}}},
	})
	return []env.Environment{e}, err
}

func TestListWording(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := command.Run(context.Background(), []string{"oracle", "list"}, agentless, &stdout, &stderr)
	want := "bare\n" +
		"  agents: none (record and check have no case for it)\n" +
		"  tools (1): count\n" +
		"  tasks (1):\n" +
		"    TASK-001   VER-001  Count  (easy)\n"
	if code != 0 || stdout.String() != want {
		t.Errorf("exit %d, stdout:\n%q\nwant:\n%q\nstderr %s", code, stdout.String(), want, stderr.String())
	}
	if strings.Contains(stdout.String(), "(regression: )") {
		t.Error("an empty list of regression agents is printed")
	}
}
