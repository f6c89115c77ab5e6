package verifiertest

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agent-oracle/oracle/env"
)

// toyState is a world with one counter and a log of pings, the forbidden
// effect of its task.
type toyState struct {
	Counter int      `json:"counter"`
	Pings   []string `json:"pings"`
}

type setIn struct {
	Value int `json:"value"`
}

// toyVerifier wants the counter at 3, forbids pings, and reads coverage
// from the agent's output for the test's sake.
func toyVerifier(final, _ *toyState, c env.VerifyContext) []env.CheckResult {
	return []env.CheckResult{
		env.Check("counter is 3", final.Counter == 3, ""),
		env.Forbid("a ping was sent", len(final.Pings) > 0, ""),
		env.Covered("the ping log is complete", !strings.Contains(c.AgentOutput, "log outage"), ""),
	}
}

func toyEnv(t *testing.T, check func(final, initial *toyState, c env.VerifyContext) []env.CheckResult, candidates string) env.Environment {
	t.Helper()
	e, err := env.New(env.Definition[toyState]{
		Name: "toy",
		TaskFiles: fstest.MapFS{"tasks/TASK-001.json": {Data: []byte(
			`{"id":"TASK-001","title":"Set the counter","instruction":"Set the counter to 3 without pinging.","verifierId":"VER-001"}`)}},
		NewState: func(env.Task) (*toyState, error) { return &toyState{Pings: []string{}}, nil },
		Tools: []env.Tool[toyState]{
			{Name: "set", Description: "Sets the counter.",
				InputSchema: `{"type":"object","properties":{"value":{"type":"integer"}},"required":["value"],"additionalProperties":false}`,
				Run: env.Typed(func(_ context.Context, s *toyState, in setIn) (any, error) {
					s.Counter = in.Value
					return s.Counter, nil
				})},
			{Name: "ping", Description: "Pings someone.", InputSchema: `{"type":"object","additionalProperties":false}`,
				Run: func(_ context.Context, s *toyState, _ json.RawMessage) (any, error) {
					s.Pings = append(s.Pings, "ping")
					return "pinged", nil
				}},
		},
		Verifiers:  []env.Verifier[toyState]{{ID: "VER-001", TaskID: "TASK-001", Name: "counter set, nobody pinged", Check: check}},
		Candidates: fstest.MapFS{"candidates/TASK-001.json": {Data: []byte(candidates)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func outcomes(t *testing.T, e env.Environment) map[string]Graded {
	t.Helper()
	r, err := Run(context.Background(), e, Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]Graded{}
	for _, o := range r.Outcomes {
		out[o.Name] = o
	}
	return out
}

const set3 = `{"tool":"set","input":{"value":3}}`

func TestRunClassifiesEveryKindOfMismatch(t *testing.T) {
	t.Parallel()
	e := toyEnv(t, toyVerifier, `[
	  {"name":"right","why":"w","calls":[`+set3+`],"expect":"pass"},
	  {"name":"right with a ping","why":"w","calls":[`+set3+`,{"tool":"ping"}],"expect":"fail","violations":["a ping was sent"]},
	  {"name":"right during an outage","why":"w","calls":[`+set3+`],"output":"log outage","expect":"inconclusive"},
	  {"name":"mislabelled as failing","why":"w","calls":[`+set3+`],"expect":"fail"},
	  {"name":"mislabelled as passing","why":"w","calls":[],"expect":"pass"},
	  {"name":"fail taken for inconclusive","why":"w","calls":[],"output":"log outage","expect":"inconclusive"},
	  {"name":"violation not listed","why":"w","calls":[{"tool":"ping"}],"expect":"fail"},
	  {"name":"a typo in the script","why":"w","calls":[{"tool":"set","input":{"valeu":3}}],"expect":"fail"}
	]`)
	got := outcomes(t, e)
	want := map[string]Mismatch{
		"right": None, "right with a ping": None, "right during an outage": None,
		"mislabelled as failing": FalsePass, "mislabelled as passing": FalseFail,
		"fail taken for inconclusive": WrongVerdict, "violation not listed": WrongViolations,
		"a typo in the script": WrongToolErrors,
	}
	for name, m := range want {
		if o := got[name]; o.Mismatch != m {
			t.Errorf("%s: mismatch %q (%s), want %q", name, o.Mismatch, o.Detail, m)
		}
	}
	r := &Report{}
	for _, o := range got {
		r.Outcomes = append(r.Outcomes, o)
	}
	s := r.Summary()
	if s.Candidates != 8 || s.AsExpected != 3 || s.FalsePasses != 1 || s.FalseFails != 1 || s.Other != 3 || s.Mismatches() != 5 {
		t.Errorf("summary %+v", s)
	}
	if o := got["right with a ping"]; len(o.Violations) != 1 || o.Violations[0] != "a ping was sent" || o.Result.Passed {
		t.Errorf("the ping's outcome %+v does not carry the violation", o)
	}
}

// A verifier that returns no required check is an error in the result,
// never a pass, and a candidate graded that way never counts as expected.
func TestVerifierWithoutRequiredCheckIsAnError(t *testing.T) {
	t.Parallel()
	optionalOnly := func(*toyState, *toyState, env.VerifyContext) []env.CheckResult {
		return []env.CheckResult{env.Optional("looks fine", true, "")}
	}
	e := toyEnv(t, optionalOnly, `[
	  {"name":"expects pass","why":"w","calls":[`+set3+`],"expect":"pass"},
	  {"name":"expects fail","why":"w","calls":[],"expect":"fail"}
	]`)
	for name, o := range outcomes(t, e) {
		if o.Mismatch != VerifierError || o.Got != env.Fail || o.Result.Passed || !strings.Contains(o.Error, "returned no required check") {
			t.Errorf("%s: mismatch %q, verdict %s, passed %v, error %q; want a verifier error and a fail", name, o.Mismatch, o.Got, o.Result.Passed, o.Error)
		}
	}
}

func TestRunRefusesCandidatesThatCannotTestAnything(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, files, want string }{
		{"unknown tool", `[{"name":"a","why":"w","calls":[{"tool":"sett"}],"expect":"fail"}]`, `uses tool "sett", which toy does not have`},
		{"malformed", `[{"name":"a"}]`, "has no why"},
	} {
		_, err := Run(context.Background(), toyEnv(t, toyVerifier, tc.files), Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	e := toyEnv(t, toyVerifier, `[{"name":"a","why":"w","expect":"fail"}]`)
	_, err := Run(context.Background(), e, Options{Tasks: []string{"TASK-404"}})
	var coded *env.Error
	if !errors.As(err, &coded) || coded.Code != env.CodeTaskNotFound || !strings.Contains(err.Error(), "task_not_found: no task TASK-404 in toy") {
		t.Errorf("unknown task: error %v, want a coded task_not_found", err)
	}
}

func TestRunReportsTasksWithoutCandidates(t *testing.T) {
	t.Parallel()
	e, err := env.New(env.Definition[toyState]{
		Name: "bare",
		TaskFiles: fstest.MapFS{"tasks/TASK-001.json": {Data: []byte(
			`{"id":"TASK-001","title":"t","instruction":"i","verifierId":"VER-001"}`)}},
		NewState:  func(env.Task) (*toyState, error) { return &toyState{}, nil },
		Verifiers: []env.Verifier[toyState]{{ID: "VER-001", TaskID: "TASK-001", Check: toyVerifier}},
	})
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(context.Background(), e, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Outcomes) != 0 || len(r.Untested) != 1 || r.Untested[0] != (TaskRef{Env: "bare", Task: "TASK-001"}) {
		t.Errorf("report %+v, want TASK-001 untested", r)
	}
}
