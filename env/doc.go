// Package env is the authoring contract for agent evaluation environments.
//
// An environment is a world (its state), the tools an agent may call on it,
// tasks discovered from tasks/*.json, and verifiers that grade a rollout from
// the final state, the initial state and the agent's output. Authors describe
// an environment with a Definition; the runner, the oracle and the command
// line see it through the Environment interface. Tools declare what they
// write (Tool.ReadOnly, Tool.Writes), so that a call's rollback copies only
// what the tool may change; Definition.CheckReadOnly checks the
// declarations in an environment's tests.
//
// Verifiers return checks made with Check (required), Optional, Forbid
// (forbidden effects) and Covered (observation coverage); Grade turns them into
// a verdict and a reward by one fixed rule, so every environment grades alike.
// Package env/answer reads free-text answers (NumbersIn, StatesNumber, Names),
// so that parsing stays in one place. An environment may carry verifier test
// candidates, labelled scripted rollouts per task (Definition.Candidates,
// CandidateSource), which package verifiertest plays to measure its
// verifiers' false passes and false fails.
//
// Validate checks an environment against this contract without running an
// agent, and its project's manifest (silo.environment.json, see Manifest),
// whose entrypoint is the folder of the environment's Go package.
package env
