// Package oracle compares fresh rollouts with frozen baselines.
//
// A case is (environment, agent, task); Select makes the cases of a
// project. Record runs each case at least twice, refuses to freeze a case
// whose runs differ, and writes the artifacts' exact bytes into the
// baseline store. CheckEach re-runs the cases and compares byte for byte,
// never writing a baseline, and hands on each case's report as it ends:
// each case is unchanged, changed (with a semantic diff), missing,
// obsolete, nondeterministic or an error, and a change that flips the
// verdict is labelled a regression or an improvement. Compare reports what
// a check left pending as the check reported it.
//
// Derivation and baselines catch different failures. A verifier derives its
// expectation through the same helpers the tools use, so a wrong helper moves
// both sides and grading still passes; a baseline frozen when behaviour was
// known good cannot follow a formula change.
package oracle
