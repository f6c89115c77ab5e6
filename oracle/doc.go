// Package oracle compares fresh rollouts with frozen baselines.
//
// A case is (environment, agent, task). Record runs each selected case at
// least twice, refuses to freeze a case whose runs differ, and writes the
// artifacts' exact bytes into the baseline store. Check re-runs the cases and
// compares byte for byte, never writing a baseline: each case is unchanged,
// changed (with a semantic diff), missing, obsolete, nondeterministic or an
// error, and a change that flips the verdict is labelled a regression or an
// improvement.
//
// Derivation and baselines catch different failures. A verifier derives its
// expectation through the same helpers the tools use, so a wrong helper moves
// both sides and grading still passes; a baseline frozen when behaviour was
// known good cannot follow a formula change.
package oracle
