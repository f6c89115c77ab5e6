package command_test

import (
	"context"
	"encoding/json"
	"os"
	"testing/fstest"

	"github.com/agent-oracle/oracle/command"
	"github.com/agent-oracle/oracle/env"
)

// counters is the state of a toy environment: named counters.
type counters map[string]int

// toyEnvironments is a binary's whole catalogue: one environment, built in
// memory, with one tool, one task and its verifier.
func toyEnvironments() ([]env.Environment, error) {
	e, err := env.New(env.Definition[counters]{
		Name:        "toy",
		Description: "Counters an agent sets.",
		TaskFiles: fstest.MapFS{
			"tasks/TASK-001.json": {Data: []byte(`{"id":"TASK-001","title":"Set C-1 to 5","instruction":"Set counter C-1 to 5.","verifierId":"VER-001"}`)},
		},
		NewState: func(env.Task) (*counters, error) { return &counters{"C-1": 1}, nil },
		Tools: []env.Tool[counters]{{
			Name: "set_counter", Description: "Sets a counter.",
			InputSchema: `{"type":"object","properties":{"id":{"type":"string"},"value":{"type":"integer"}},"required":["id","value"]}`,
			Run: func(_ context.Context, s *counters, in json.RawMessage) (any, error) {
				var a struct {
					ID    string `json:"id"`
					Value int    `json:"value"`
				}
				if err := json.Unmarshal(in, &a); err != nil {
					return nil, err
				}
				(*s)[a.ID] = a.Value
				return a, nil
			},
		}},
		Verifiers: []env.Verifier[counters]{{
			ID: "VER-001", TaskID: "TASK-001", Name: "C-1 is 5",
			Check: func(final, _ *counters, _ env.VerifyContext) []env.CheckResult {
				return []env.CheckResult{env.Check("C-1 is 5", (*final)["C-1"] == 5, "")}
			},
		}},
	})
	if err != nil {
		return nil, err
	}
	return []env.Environment{e}, nil
}

// A project's binary is command.Main with its environments; command.Run is
// the same with the context and output streams given. list needs no project.
func ExampleRun() {
	command.Run(context.Background(), []string{"oracle", "list", "--no-color"}, toyEnvironments, os.Stdout, os.Stdout)
	// Output:
	// toy  Counters an agent sets.
	//   agents: none (record and check have no case for it)
	//   tools (1): set_counter
	//   tasks (1):
	//     TASK-001   VER-001  Set C-1 to 5
}
