package oracle

import (
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/oracle/change"
	"github.com/agent-oracle/oracle/oracle/internal/artifacttest"
	"github.com/agent-oracle/oracle/oracle/report"
	"github.com/agent-oracle/oracle/runner"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestCompareIsCheck: review's report of what a check left pending is the
// check's report of the case, for each way a case can come out of a check
// that ran it: unchanged, changed, missing (no baseline), and missing
// because its baseline lacks a file (an artifact added since it was
// recorded). Only what the run alone knows is left out: the time the runs
// took, the violations the fresh run confirmed and, for a baseline without
// calls.json, the tool errors of the fresh trace.
func TestCompareIsCheck(t *testing.T) {
	store := &baseline.Store{Root: t.TempDir()}
	record(t, store, newLedger(t, ledgerOpts{tasks: 4}))
	// TASK-001 and TASK-003 stay as recorded and change with the mutant's
	// fee; TASK-002 loses its calls.json, TASK-004 its baseline
	if err := os.Remove(store.Path(baseline.Key{Env: "ledger", Agent: "solver", Task: "TASK-002"}, runner.CallsFile)); err != nil {
		t.Fatal(err)
	}
	if err := store.Remove(baseline.Key{Env: "ledger", Agent: "solver", Task: "TASK-004"}); err != nil {
		t.Fatal(err)
	}
	for _, e := range []struct {
		name string
		opts ledgerOpts
	}{{"as recorded", ledgerOpts{tasks: 4}}, {"mutant", ledgerOpts{tasks: 4, feeFactor: 1.5}}} {
		res := check(t, store, newLedger(t, e.opts))
		seen := map[report.Status]bool{}
		for _, want := range res.Report.Cases {
			k := want.Key()
			seen[want.Status] = true
			var frozen *baseline.Entry
			switch f, err := store.Read(k); {
			case err == nil:
				frozen = &f
			case !errors.Is(err, baseline.ErrNotFound):
				t.Fatal(err)
			}
			fresh, kept := res.Fresh[k]
			if !kept {
				// an unchanged case keeps nothing: its fresh artifacts are
				// its baseline's bytes
				fresh = *frozen
			}
			got := Compare(k, frozen, fresh, false)
			runOnly := []string{"Elapsed", "Violations"}
			if frozen != nil && frozen.Calls == nil {
				runOnly = append(runOnly, "ToolErrors", "ToolErrorsFrom")
			}
			if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(report.Case{}, runOnly...)); diff != "" {
				t.Errorf("%s %s (-check +Compare):\n%s", e.name, k, diff)
			}
		}
		if e.name == "mutant" && !(seen[report.StatusChanged] && seen[report.StatusMissing] && !seen[report.StatusUnchanged]) {
			t.Errorf("%s: statuses %v, want changed and missing cases", e.name, seen)
		}
		if e.name == "as recorded" && !(seen[report.StatusUnchanged] && seen[report.StatusMissing]) {
			t.Errorf("%s: statuses %v, want unchanged and missing cases", e.name, seen)
		}
	}
}

// TestJudgeFoldsWhatTheHeadlineSays: the classification of a changed case
// marks the result.json changes its headline says (the fields derived from
// the checks, the outcome and detail of the checks its story lists) and
// leaves the others (the answer, the tool counts) to be listed.
func TestJudgeFoldsWhatTheHeadlineSays(t *testing.T) {
	old := artifacttest.Result(t, nil, artifacttest.Check("A", "required", true, "answered 12"), artifacttest.Check("B", "optional", true, "fine"))
	freshResult := artifacttest.Result(t, []string{"v"}, artifacttest.Check("A", "required", false, "answered 13"), artifacttest.Check("B", "optional", true, "fine"))
	var r map[string]any
	json.Unmarshal(freshResult, &r)
	r["agentOutput"], r["toolCalls"] = "another answer", 3
	freshResult, _ = json.Marshal(r)
	k := baseline.Key{Env: "e", Agent: "a", Task: "T-1"}
	cr := Compare(k, &baseline.Entry{Result: old}, baseline.Entry{Result: freshResult}, false)
	if cr.Status != report.StatusChanged || cr.Label != change.LabelRegression || cr.Story == nil || len(cr.Story.Checks) != 1 {
		t.Fatalf("case: %+v, story %+v", cr, cr.Story)
	}
	var folded, listed []string
	for _, c := range cr.Files[0].Changes {
		if c.Folded {
			folded = append(folded, c.Path)
		} else {
			listed = append(listed, c.Path)
		}
	}
	wantFolded := []string{"/checks/0/detail", "/checks/0/passed", "/checksFailed", "/checksPassed", "/failedRequired/0", "/passed",
		"/requiredPassed", "/reward", "/verdict", "/violations/0"}
	if diff := cmp.Diff(wantFolded, folded); diff != "" {
		t.Errorf("folded (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"/agentOutput", "/toolCalls"}, listed); diff != "" {
		t.Errorf("listed (-want +got):\n%s", diff)
	}
	if got := cr.Files[0].Unfolded(); len(got) != len(listed) {
		t.Errorf("Unfolded: %d changes, want %d", len(got), len(listed))
	}
}
