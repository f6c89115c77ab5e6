package oracle

import (
	"slices"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/internal/artifact"
	"github.com/agent-oracle/oracle/oracle/change"
	"github.com/agent-oracle/oracle/oracle/report"
	"github.com/agent-oracle/oracle/runner"
)

// Compare is the report of one case from what its baseline holds (nil: no
// baseline) and what is pending for it (obsolete: its baseline has no case
// any more), as check gives it: a missing, obsolete, changed or unchanged
// case, with each artifact's diff, the verdicts, the rewards and the new
// tool errors (from calls.json). An artifact that is not pending is not
// compared: accepting keeps the baseline's. It is how oracle review shows
// a pending case.
func Compare(k baseline.Key, frozen *baseline.Entry, fresh baseline.Entry, obsolete bool) *report.Case {
	cr := newCaseReport(k)
	if obsolete {
		cr.Status = report.StatusObsolete
		return cr
	}
	cr.Baseline = baseline.NoBaselineHash
	if frozen != nil {
		cr.Baseline = baseline.HashEntry(*frozen)
	}
	now := factsOf(fresh.Result)
	cr.NewVerdict, cr.NewReward = now.verdict, now.reward
	// not pending (check compared only some artifacts): accepting keeps
	// the baseline's file, so it is no change
	pending := slices.DeleteFunc(slices.Clone(baseline.Files), func(name string) bool { return fresh.File(name) == nil })
	judge(cr, frozen, fresh, pending, now, nil)
	return cr
}

// What a check keeps of a case's fresh runs.
type keeping int

const (
	keepNothing keeping = iota
	keepFresh           // the fresh artifacts
	keepTrace           // the fresh artifacts and the first run's trace
)

// judge is the one classification of a case that ran, for check and for
// review: it compares the files of the case (files) between its baseline
// (frozen, nil when it has none) and its fresh artifacts, sets the case's
// status, and for a changed case its label, checks and tool errors, and
// says what of the fresh runs a check keeps. The case is
//
//   - missing when it has no baseline, or when the only differences are
//     files its baseline lacks (artifacts added since it was recorded,
//     which record adds);
//   - unchanged when no file differs;
//   - changed otherwise, labelled when its verdict flipped.
//
// now are the fresh result's facts, which cr already shows; trace is the
// fresh trace, for the tool errors of a baseline without calls.json (nil:
// none).
func judge(cr *report.Case, frozen *baseline.Entry, fresh baseline.Entry, files []string, now resultFacts, trace []byte) keeping {
	if frozen == nil {
		cr.Status = report.StatusMissing
		return keepTrace
	}
	changed := false
	for _, name := range files {
		if frozen.File(name) == nil {
			cr.Files = append(cr.Files, &change.FileDiff{File: name, State: change.FileMissing})
			continue
		}
		if d := change.DiffFile(name, frozen.File(name), fresh.File(name)); d != nil {
			cr.Files = append(cr.Files, d)
			changed = true
		}
	}
	// when result.json is compared and no file differs, the baseline's
	// result.json holds the fresh result's bytes
	old := now
	if len(cr.Files) > 0 || now.verdict == "" || !slices.Contains(files, runner.ResultFile) {
		old = factsOf(frozen.Result)
	}
	cr.OldVerdict, cr.OldReward, cr.OldToolErrors = old.verdict, old.reward, old.toolErrors
	switch {
	case len(cr.Files) == 0:
		cr.Status = report.StatusUnchanged
		return keepNothing
	case !changed:
		cr.Status = report.StatusMissing
		return keepFresh
	}
	cr.Status = report.StatusChanged
	cr.Label = flip(cr.OldVerdict, cr.NewVerdict)
	setToolErrors(cr, frozen.Calls, fresh.Calls, trace)
	cr.Checks = change.CheckStates(frozen.Result, fresh.Result)
	cr.Story = change.StoryOf(frozen.Result, fresh.Result)
	for _, f := range cr.Files {
		if f.File == artifact.Result {
			change.Fold(f, cr.Story, cr.OldVerdict != "" && cr.NewVerdict != "")
		}
	}
	return keepTrace
}

// VerdictChange compares the verdict of a baseline's result.json (frozen;
// nil when the case has none) with that of a pending one (fresh; nil when
// result.json is not pending, so accepting keeps the baseline's): the two
// verdicts, as far as they are known, and the label when the verdict
// flipped, as a check labels the case; a pending result.json that holds no
// verdict (none can be read from it) where the baseline passed is a
// regression too, since accepting it leaves no passing baseline. It reads
// the verdicts only, so accept can say what each case's verdict does
// without diffing its files.
func VerdictChange(frozen, fresh []byte) (old, now env.Verdict, label change.Label) {
	if fresh == nil {
		return "", "", ""
	}
	now = factsOf(fresh).verdict
	if frozen == nil {
		return "", now, ""
	}
	old = factsOf(frozen).verdict
	if old == env.Pass && now == "" {
		return old, now, change.LabelRegression
	}
	return old, now, flip(old, now)
}
