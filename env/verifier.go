package env

import "encoding/json"

// Verifier grades the rollouts of one task from the final state, the initial
// state and the agent's output. It derives what should have happened from
// initial, never from final, and looks things up by property rather than by
// id where it can.
//
// Check reads final and initial; it should not change them. If it does,
// neither the rollout's artifacts nor any other rollout see the change,
// but the two states may share the parts no tool wrote (a field of the
// state no write tool declared in its Writes, see Tool.Writes), so a change
// to one may show in the other.
type Verifier[S any] struct {
	ID     string
	TaskID string
	Name   string
	Check  func(final, initial *S, c VerifyContext) []CheckResult
}

// VerifyContext is what a verifier knows besides the two states.
type VerifyContext struct {
	// AgentOutput is the agent's final output: the string itself, or the
	// compact JSON of any other value, or "" when there was none.
	AgentOutput string
	Task        Task
	// Calls are the rollout's tool calls as calls.json records them, in
	// order: what a check of the path takes reads (a record that must
	// not be read, a write that must come after an approval). A verifier
	// does not change them.
	Calls []Call
}

// Call is one tool call of a rollout as the agent saw it, an entry of
// calls.json (docs/calls.md). Input is the JSON the runner validated (null
// when the agent's input was not JSON); exactly one of Output and Error is
// set. Error is the tool error the agent received (code, message and any
// details): for invalid input, an unknown tool, a tool that failed and the
// call refused because the budget was used up. Nothing in a Call varies
// between runs of the same behaviour: no time, duration or id.
type Call struct {
	Tool   string          `json:"tool"`
	Input  json.RawMessage `json:"input"`
	Output json.RawMessage `json:"output,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

// VerifierInfo describes a verifier without its state type.
type VerifierInfo struct {
	ID     string `json:"id"`
	TaskID string `json:"taskId"`
	Name   string `json:"name"`
}

// NotImplemented is the check of a scaffolded verifier. It fails on purpose:
// an unimplemented verifier must never report a passing run.
func NotImplemented(id string) []CheckResult {
	return []CheckResult{Check("TODO: define success condition", false, "Verifier \""+id+"\" is not implemented yet.")}
}
