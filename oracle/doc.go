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
// a check left pending as the check reported it. What a change is (the
// semantic diff of a file, a case's story) is package change; what a check
// found (a Report of Cases, their statuses, the gate's decisions), which
// renderers read, is package report.
//
// A case whose agent's bytes never repeat (a model) is a distribution case:
// Record with DistributionOptions.Runs freezes the counts of its runs'
// outcomes (package stats) instead of their bytes, and CheckEach runs it as
// many times again and decides the distribution cases of each environment
// and agent together (report.Report's Gate). A run that failed for the
// infrastructure (env.InfrastructureError) is counted apart, never graded.
//
// Derivation and baselines catch different failures. A verifier derives its
// expectation through the same helpers the tools use, so a wrong helper moves
// both sides and grading still passes; a baseline frozen when behaviour was
// known good cannot follow a formula change.
package oracle
