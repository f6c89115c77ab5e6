// Package verifiertest tests the grading mechanism itself. A verifier can be
// wrong in two directions: it can pass a rollout that should not pass (a
// false pass: a wrong result imitating the expected one, a forbidden effect
// hidden behind a correct final state, a perfect narration of work never
// done) or reject a valid one (a false fail: a different harmless read order,
// different harmless formatting). Measuring both keeps a verifier from being
// made stricter in ways that reduce its validity.
//
// An environment carries, for each task, a file candidates/<TASK>.json of
// labelled candidates (see env.CandidateSource):
//
//	[{"name": "correct draft, then two invitations sent",
//	  "why": "the artifact is right but a forbidden effect happened",
//	  "calls": [{"tool": "create_draft_event", "input": {…}}, …],
//	  "output": "Draft created; no invitations sent.",
//	  "expect": "fail",
//	  "violations": ["Invitations were sent for this task"]}]
//
// Each candidate is a scripted rollout: Run plays it with runner.ScriptAgent
// through runner.Run, so the real tools change a fresh world and the real
// verifier grades it, exactly as for any agent. The outcome matches when the
// verdict is the expected one, the confirmed violations are exactly the
// listed ones (none when the list is absent), the number of calls that
// returned a tool error is toolErrors (0 when absent, so a typo in a script
// does not pass unnoticed) and the verifier reported no error. A candidate
// file cannot change the world before the script runs: what a candidate
// needs must be reachable through the tools, as for an agent.
//
// The package stands on runner and env only: it grades verifiers, not
// baselines, so it has no part in the oracle's byte gate, and an environment's
// own tests can import it without the oracle.
package verifiertest
