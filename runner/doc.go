// Package runner rolls one agent through one task of an environment and
// produces the artifacts of a run: result.json, state-diff.json and
// calls.json (the tool calls as the agent saw them), which carry no
// timestamps and no ids so that two rollouts of the same behaviour are
// byte-identical, and run.json and trace.jsonl, which do.
//
// The runner validates every tool call against the tool's JSON Schema before
// the tool runs, serialises calls, enforces the tool-call and time budgets,
// and runs the verifier whatever happened. Agents are Go agents compiled into
// the binary, external processes speaking JSON Lines (exec:COMMAND), or
// replays of a recorded trace (replay:PATH); see Resolve.
package runner
