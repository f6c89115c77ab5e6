package oracle

import "errors"

// The names of a report and of the folders a check reads and writes.
const (
	// FreshDir is the folder of a report folder that holds the fresh
	// artifacts and traces, in the baseline store's layout.
	FreshDir = "fresh"

	// CasePageSuffix ends the name of a case's page beside its fresh
	// artifacts: fresh/<env>/<agent>/<TASK>.view.html.
	CasePageSuffix = ".view.html"

	// TracesDir holds the recorded traces that are regression cases,
	// relative to the project root: .silo/traces/<env>/<agent>/<TASK>.trace.jsonl
	// (or <TASK>.trace.json, a JSON array of events as the original runner
	// wrote). The path is the case: each such file is a case (env, agent,
	// task) whose agent replays the trace, frozen and checked like any
	// other. Committing the file registers the case; deleting it retires
	// the case, whose baselines then show as obsolete.
	TracesDir = ".silo/traces"
)

// ErrNothingSelected is returned when a selection holds no case.
var ErrNothingSelected = errors.New("no case matches")
