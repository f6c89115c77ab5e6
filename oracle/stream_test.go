package oracle

import (
	"testing"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/google/go-cmp/cmp"
)

// Cases compared as their runs end, by four workers, still come out in the
// cases' order with the same entries, whichever finished first; changed
// cases keep their fresh artifacts and trace, unchanged ones nothing.
func TestCheckReportsInCaseOrder(t *testing.T) {
	store := &baseline.Store{Root: t.TempDir()}
	e := newLedger(t, ledgerOpts{tasks: 40})
	record(t, store, e)
	want := []string{}
	for _, c := range cases(t, e) {
		want = append(want, c.Key.String())
	}
	for range 3 {
		res := check(t, store, e)
		var got []string
		for _, c := range res.Report.Cases {
			got = append(got, c.Case)
			if c.Status != StatusUnchanged || c.OldVerdict != c.NewVerdict || c.OldReward == nil {
				t.Errorf("%s: status %s, verdict %s → %s", c.Case, c.Status, c.OldVerdict, c.NewVerdict)
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("report order (-cases +report):\n%s", diff)
		}
		if len(res.Fresh) != 0 || len(res.Traces) != 0 {
			t.Errorf("unchanged cases kept %d fresh entries and %d traces", len(res.Fresh), len(res.Traces))
		}
	}
	res := check(t, store, newLedger(t, ledgerOpts{tasks: 40, feeFactor: 1.5}))
	if res.Report.Summary.Changed == 0 {
		t.Fatalf("the mutant changed nothing: %+v", res.Report.Summary)
	}
	for _, c := range res.Report.Cases {
		k := baseline.Key{Env: c.Env, Agent: c.Agent, Task: c.Task}
		if c.Status == StatusChanged && (res.Fresh[k].Result == nil || len(res.Traces[k]) == 0) {
			t.Errorf("%s changed without its fresh artifacts and trace", c.Case)
		}
	}
}
