package runner

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"testing/fstest"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/env/answer"
)

// toyState is a small world for the runner's tests: a list of counters.
type toyState struct {
	Now      string            `json:"now"`
	Counters []toyCounter      `json:"counters"`
	Labels   map[string]string `json:"labels"`
}

type toyCounter struct {
	ID    string `json:"id"`
	Value int    `json:"value"`
}

type setInput struct {
	ID    string `json:"id"`
	Value int    `json:"value"`
}

const setSchema = `{"type":"object","properties":{"id":{"type":"string","pattern":"^C-[0-9]+$"},"value":{"type":"integer","minimum":0}},"required":["id","value"],"additionalProperties":false}`

func toyTools() []env.Tool[toyState] {
	find := func(s *toyState, id string) (*toyCounter, error) {
		for i := range s.Counters {
			if s.Counters[i].ID == id {
				return &s.Counters[i], nil
			}
		}
		return nil, env.Errorf("not_found", "no counter %s", id)
	}
	return []env.Tool[toyState]{
		{Name: "list_counters", Description: "Lists the counters.", InputSchema: `{"type":"object","additionalProperties":false}`,
			Run: func(_ context.Context, s *toyState, _ json.RawMessage) (any, error) { return s.Counters, nil }},
		{Name: "set_counter", Description: "Sets a counter.", InputSchema: setSchema,
			Run: env.Typed(func(_ context.Context, s *toyState, in setInput) (any, error) {
				c, err := find(s, in.ID)
				if err != nil {
					return nil, err
				}
				c.Value = in.Value
				return *c, nil
			})},
		{Name: "set_then_fail", Description: "Sets every counter, then fails.", InputSchema: `{"type":"object"}`,
			Run: func(_ context.Context, s *toyState, _ json.RawMessage) (any, error) {
				for i := range s.Counters {
					s.Counters[i].Value = 99
				}
				s.Labels["broken"] = "yes"
				return nil, env.Errorf("invalid_state", "gave up halfway")
			}},
		{Name: "set_then_panic", Description: "Sets every counter, then panics.", InputSchema: `{"type":"object"}`,
			Run: func(_ context.Context, s *toyState, _ json.RawMessage) (any, error) {
				s.Counters = append(s.Counters, toyCounter{ID: "C-9", Value: 9})
				s.Labels["broken"] = "yes"
				panic("tool bug")
			}},
	}
}

func toyVerifier(check func(final, initial *toyState, c env.VerifyContext) []env.CheckResult) env.Verifier[toyState] {
	return env.Verifier[toyState]{ID: "VER-001", TaskID: "TASK-001", Name: "Counter C-1 is 5", Check: check}
}

func setToFive(final, initial *toyState, c env.VerifyContext) []env.CheckResult {
	got := -1
	for _, x := range final.Counters {
		if x.ID == "C-1" {
			got = x.Value
		}
	}
	return []env.CheckResult{
		env.Check("C-1 is 5", got == 5, "C-1 = "+strconv.Itoa(got)),
		env.Optional("The agent said done", answer.Names(c.AgentOutput, "done"), "output = "+c.AgentOutput),
	}
}

func newToy(t testing.TB, v env.Verifier[toyState], agents map[string]env.Agent) env.Environment {
	t.Helper()
	return newToyWith(t, toyTools(), v, agents)
}

// newToyWith is newToy with other tools.
func newToyWith(t testing.TB, tools []env.Tool[toyState], v env.Verifier[toyState], agents map[string]env.Agent) env.Environment {
	t.Helper()
	e, err := env.New(env.Definition[toyState]{
		Name: "toy",
		TaskFiles: fstest.MapFS{
			"tasks/TASK-001.json": {Data: []byte(`{"id":"TASK-001","title":"Set C-1","instruction":"Set counter C-1 to 5.","verifierId":"VER-001"}`)},
		},
		NewState: func(env.Task) (*toyState, error) {
			return &toyState{Now: "2026-03-16T09:00:00Z", Counters: []toyCounter{{"C-1", 1}, {"C-2", 2}}, Labels: map[string]string{}}, nil
		},
		Tools:     tools,
		Verifiers: []env.Verifier[toyState]{v},
		Agents:    agents,
	})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func toyTask(t testing.TB, e env.Environment) env.Task {
	t.Helper()
	tasks, err := e.Tasks()
	if err != nil || len(tasks) != 1 {
		t.Fatalf("tasks: %v %v", tasks, err)
	}
	return tasks[0]
}

// solveToy sets C-1 to 5 and says done.
var solveToy = env.AgentFunc(func(ctx context.Context, in env.AgentInput) (any, error) {
	in.Call(ctx, "list_counters", nil)
	r := in.Call(ctx, "set_counter", map[string]any{"id": "C-1", "value": 5})
	if r.IsError {
		return nil, errString(string(r.Output))
	}
	return "done", nil
})

type errString string

func (e errString) Error() string { return string(e) }
