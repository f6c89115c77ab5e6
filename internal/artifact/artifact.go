// Package artifact names the files a rollout writes, once for the whole
// module: the runner writes them into a run folder (runner.ResultFile and
// the rest are these names), the baseline store freezes three of them as
// <TASK>.<name> (baseline.Files, which derives from env.BaselineArtifacts and
// holds these names, in that order), and a report folder keeps the fresh
// ones and their trace the same way.
package artifact

// The artifact files of a rollout.
const (
	Result    = "result.json"     // the verdict, the checks and the answer
	StateDiff = "state-diff.json" // what the rollout changed in the world
	Calls     = "calls.json"      // every tool call as the agent saw it
	Run       = "run.json"        // the run's id, times and configuration
	Trace     = "trace.jsonl"     // the events of the rollout, one a line
)

// Stats is the file of a distribution case's baseline, <TASK>.stats.json:
// the counts of its outcomes over repeated runs (package oracle/stats), in
// place of the three byte-for-byte files.
const Stats = "stats.json"
