// Package stats is the statistical gate's arithmetic and the frozen
// distribution of a case whose agent's bytes never repeat (a model).
//
// A distribution case is (environment, agent, task) rolled out N times. Its
// baseline is a Distribution: the counts of the outcomes that matter (verdicts,
// termination reasons, each check's passes, each confirmed forbidden effect,
// the reward's histogram), built from Outcomes by Build, written by Marshal as
// deterministic, timestamp-free JSON (<TASK>.stats.json) and read back
// strictly by Parse.
//
// Decide compares a baseline's distributions with a candidate's over a set of
// tasks. The unit is the task: the gate's interval is that of the mean paired
// difference of per-task pass rates (candidate − baseline), a regression when
// it lies below −margin, an improvement when it lies above +margin. A
// confirmed forbidden effect that a task's baseline never showed is a
// regression on its own, and a termination reason (agent_error, timeout,
// max_tool_calls) that grew beyond what the baseline tolerates is named.
// Per-task Wilson intervals, Fisher exact tests with Holm's correction, pass^k
// and pass@k are diagnostics; they do not decide the gate.
//
// DetectableDrop and RunsFor are honest about power: the smallest drop in the
// mean pass rate a check of T tasks × N runs detects with 80% power at the 5%
// level, and the N a target drop needs. Infra says when infrastructure errors
// (runs that failed for the model API or a missing binary, never graded)
// are trouble rather than a result.
//
// docs/statistics.md gives the arithmetic. Everything here is deterministic:
// the same outcomes give the same bytes and the same decision.
package stats
