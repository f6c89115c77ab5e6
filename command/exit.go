package command

import (
	"github.com/agent-oracle/oracle/oracle"
	"github.com/agent-oracle/oracle/oracle/report"
)

// checkExits is the exit code of each status a check finds; a report exits
// with the highest of its cases'. Unchanged cases exit ExitOK.
var checkExits = map[report.Status]int{
	report.StatusChanged:          ExitChanged,
	report.StatusMissing:          ExitChanged,
	report.StatusObsolete:         ExitChanged,
	report.StatusNondeterministic: ExitChanged,
	report.StatusError:            ExitTrouble,
}

// recordExits is the exit code of each status of a recorded case: a refused
// case is behaviour that changed between runs, a failed one (nothing was
// written then) is trouble.
var recordExits = map[oracle.RecordStatus]int{
	oracle.RecordRefused: ExitChanged,
	oracle.RecordError:   ExitTrouble,
}

// checkExit is the exit code of a check report.
func checkExit(r *report.Report) int {
	code := ExitOK
	for _, c := range r.Cases {
		code = max(code, checkExits[c.Status])
	}
	return code
}

// recordExit is the exit code of a record report.
func recordExit(r *oracle.RecordReport) int {
	code := ExitOK
	for _, c := range r.Cases {
		code = max(code, recordExits[c.Status])
	}
	return code
}
