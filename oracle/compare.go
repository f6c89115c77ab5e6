package oracle

import (
	"github.com/agent-oracle/oracle/baseline"
)

// Compare is the report of one case from what its baseline holds (nil: no
// baseline) and what is pending for it (obsolete: its baseline has no case
// any more), as check would give it: a missing, obsolete, changed or
// unchanged case, with each artifact's diff, the verdicts, the rewards and
// the new tool errors (from calls.json). An artifact that is not pending is
// not compared: accepting keeps the baseline's. It is how oracle review
// shows a pending case.
func Compare(k baseline.Key, frozen *baseline.Entry, fresh baseline.Entry, obsolete bool) *CaseReport {
	cr := newCaseReport(k)
	now := factsOf(fresh.Result)
	switch {
	case obsolete:
		cr.Status = StatusObsolete
		return cr
	case frozen == nil:
		cr.Status = StatusMissing
		cr.NewVerdict, cr.NewReward = now.verdict, now.reward
		return cr
	}
	old := factsOf(frozen.Result)
	cr.OldVerdict, cr.OldReward, cr.OldToolErrors = old.verdict, old.reward, old.toolErrors
	cr.NewVerdict, cr.NewReward = now.verdict, now.reward
	for _, name := range baseline.Files {
		if fresh.File(name) == nil {
			// not pending (check compared only some artifacts): accepting
			// keeps the baseline's file, so it is no change
			continue
		}
		if d := DiffFile(name, frozen.File(name), fresh.File(name)); d != nil {
			cr.Files = append(cr.Files, d)
		}
	}
	cr.Status = StatusUnchanged
	if len(cr.Files) > 0 {
		cr.Status = StatusChanged
		cr.Label = flip(cr.OldVerdict, cr.NewVerdict)
		cr.Checks = checkStates(frozen.Result, fresh.Result)
		cr.setToolErrors(frozen.Calls, fresh.Calls, nil)
	}
	return cr
}
