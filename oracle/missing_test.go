package oracle

import (
	"os"
	"testing"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/google/go-cmp/cmp"
)

// TestMissingArtifactFile: a baseline recorded before an artifact existed
// (no calls.json) is missing for that file, never an error; record adds the
// file and check is then unchanged.
func TestMissingArtifactFile(t *testing.T) {
	store := &baseline.Store{Root: t.TempDir()}
	e := newLedger(t, ledgerOpts{tasks: 2})
	record(t, store, e)
	k := baseline.Key{Env: "ledger", Agent: "solver", Task: "TASK-001"}
	if err := os.Remove(store.Path(k, baseline.CallsFile)); err != nil {
		t.Fatal(err)
	}
	res := check(t, store, e)
	want := map[string]Status{"ledger/solver/TASK-001": StatusMissing, "ledger/solver/TASK-002": StatusUnchanged}
	if diff := cmp.Diff(want, statuses(res.Report)); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	if res.Report.ExitCode() != 1 {
		t.Errorf("exit code %d, want 1", res.Report.ExitCode())
	}
	files := res.Report.Cases[0].Files
	if len(files) != 1 || files[0].File != baseline.CallsFile || files[0].State != FileMissing {
		t.Errorf("files of the missing case: %+v", files)
	}
	if _, ok := res.Fresh[k]; !ok {
		t.Error("the fresh artifacts of the missing case are not kept")
	}
	rep := record(t, store, e)
	if rep.Cases[0].Status != RecordWrote || rep.Cases[1].Status != RecordKept {
		t.Errorf("record: %+v", rep.Cases)
	}
	if _, err := os.Stat(store.Path(k, baseline.CallsFile)); err != nil {
		t.Errorf("record did not add calls.json: %v", err)
	}
	if res := check(t, store, e); res.Report.ExitCode() != 0 {
		t.Errorf("check after record: %+v", res.Report.Summary)
	}
}
