package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing/fstest"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/fixtures"
	"github.com/agent-oracle/oracle/fixtures/crm"
)

// testEnvironments are the built-in environments, and, for the script
// tests, environments that misbehave on purpose, each switched on by an
// environment variable:
//
//	ORACLE_MUTANT=NAME          crm is replaced by the crm mutant NAME
//	ORACLE_TEST_FLAKY=1         "flaky": a tool returns a new number every call
//	ORACLE_TEST_TASKS_DIR=DIR   "disk": its tasks are read from DIR/tasks/*.json
//	ORACLE_TEST_BADSTATE=1      "badstate": its state marshals to a JSON array
//	ORACLE_TEST_BIGOUTPUT=1     "bigoutput": its tool returns 100 MB of JSON
//	ORACLE_TEST_STAMP=MODE      "stamp": its tool stamps a random id and the time (see stampEnvironment)
//
// and agents whose bytes never repeat (stochastic_test.go).
func testEnvironments() ([]env.Environment, error) {
	envs, err := fixtures.All()
	if err != nil {
		return nil, err
	}
	if name := os.Getenv("ORACLE_MUTANT"); name != "" {
		mutant, err := crm.NewMutant(name)
		if err != nil {
			return nil, err
		}
		for i := range envs {
			if envs[i].Name() == mutant.Name() {
				envs[i] = mutant
			}
		}
	}
	extra := []struct {
		variable string
		build    func(string) (env.Environment, error)
	}{
		{"ORACLE_TEST_FLAKY", func(string) (env.Environment, error) { return flakyEnvironment() }},
		{"ORACLE_TEST_TASKS_DIR", diskEnvironment},
		{"ORACLE_TEST_BADSTATE", func(string) (env.Environment, error) { return badStateEnvironment() }},
		{"ORACLE_TEST_BIGOUTPUT", func(string) (env.Environment, error) { return bigOutputEnvironment() }},
		{"ORACLE_TEST_STAMP", stampEnvironment},
	}
	for _, x := range extra {
		if v := os.Getenv(x.variable); v != "" {
			e, err := x.build(v)
			if err != nil {
				return nil, err
			}
			envs = append(envs, e)
		}
	}
	return withTestAgents(envs) // stochastic_test.go
}

type probeState struct {
	Draws []int `json:"draws"`
}

// probe is a one-task environment whose solver calls its one tool once.
func probe(name string, tasks fstest.MapFS, tool func(s *probeState) (any, error)) env.Definition[probeState] {
	if tasks == nil {
		tasks = fstest.MapFS{"tasks/TASK-001.json": {Data: []byte(
			`{"id":"TASK-001","title":"Call the tool","instruction":"Call the tool once.","verifierId":"VER-001"}`)}}
	}
	return env.Definition[probeState]{
		Name:      name,
		TaskFiles: tasks,
		NewState:  func(env.Task) (*probeState, error) { return &probeState{Draws: []int{}}, nil },
		Tools: []env.Tool[probeState]{{Name: "draw", Description: "Draws a number.", InputSchema: `{"type":"object"}`,
			Run: func(_ context.Context, s *probeState, _ json.RawMessage) (any, error) { return tool(s) }}},
		Verifiers: []env.Verifier[probeState]{{ID: "VER-001", TaskID: "TASK-001", Name: "drew",
			Check: func(final, _ *probeState, _ env.VerifyContext) []env.CheckResult {
				return []env.CheckResult{env.Check("drew a number", len(final.Draws) == 1, fmt.Sprint(len(final.Draws), " draws"))}
			}}},
		Agents: map[string]env.Agent{"solver": env.AgentFunc(func(ctx context.Context, in env.AgentInput) (any, error) {
			r := in.Call(ctx, "draw", nil)
			if r.IsError {
				return "the tool failed: " + string(r.Output[:min(len(r.Output), 200)]), nil
			}
			return "drew " + string(r.Output), nil
		})},
	}
}

var draws atomic.Int64

// flakyEnvironment's only tool returns a number that differs every call, as
// an environment reading the wall clock or an unseeded random source would.
func flakyEnvironment() (env.Environment, error) {
	return env.New(probe("flaky", nil, func(s *probeState) (any, error) {
		n := int(draws.Add(1))
		s.Draws = append(s.Draws, n)
		return n, nil
	}))
}

func steadyDraw(s *probeState) (any, error) {
	s.Draws = append(s.Draws, 4)
	return 4, nil
}

// diskEnvironment reads its tasks from dir/tasks, so scripts can write bad
// task files.
func diskEnvironment(dir string) (env.Environment, error) {
	tasks := fstest.MapFS{}
	entries, err := os.ReadDir(dir + "/tasks")
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		data, err := os.ReadFile(dir + "/tasks/" + e.Name())
		if err != nil {
			return nil, err
		}
		tasks["tasks/"+e.Name()] = &fstest.MapFile{Data: data}
	}
	return env.New(probe("disk", tasks, steadyDraw))
}

// badStateEnvironment's state is a list, not a JSON object.
func badStateEnvironment() (env.Environment, error) {
	type listState []int
	d := probe("badstate", nil, steadyDraw)
	return env.New(env.Definition[listState]{
		Name: d.Name, TaskFiles: d.TaskFiles,
		NewState: func(env.Task) (*listState, error) { return &listState{1, 2}, nil },
		Verifiers: []env.Verifier[listState]{{ID: "VER-001", TaskID: "TASK-001", Name: "never runs",
			Check: func(_, _ *listState, _ env.VerifyContext) []env.CheckResult { return env.NotImplemented("VER-001") }}},
		Agents: d.Agents,
	})
}

// bigOutputEnvironment's tool returns 100 MB of JSON.
func bigOutputEnvironment() (env.Environment, error) {
	return env.New(probe("bigoutput", nil, func(s *probeState) (any, error) {
		s.Draws = append(s.Draws, 1)
		return strings.Repeat("x", 100<<20), nil
	}))
}
