package runner_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing/fstest"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/runner"
)

type counters map[string]int

// Run rolls an agent (here a Go function that calls one tool) through a task
// of a toy environment and grades the final state with the task's verifier.
func ExampleRun() {
	e, err := env.New(env.Definition[counters]{
		Name: "toy",
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
				return []env.CheckResult{env.Check("C-1 is 5", (*final)["C-1"] == 5, fmt.Sprint("C-1 = ", (*final)["C-1"]))}
			},
		}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	tasks, err := e.Tasks()
	if err != nil {
		fmt.Println(err)
		return
	}
	agent := env.AgentFunc(func(ctx context.Context, in env.AgentInput) (any, error) {
		in.Call(ctx, "set_counter", map[string]any{"id": "C-1", "value": 5})
		return "done", nil
	})
	out, err := runner.Run(context.Background(), e, tasks[0], agent, runner.Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	r := out.Result
	fmt.Println(r.Verdict, r.Reward, r.ToolCalls, r.Checks[0].Detail)
	// Output:
	// pass 1 1 C-1 = 5
}
