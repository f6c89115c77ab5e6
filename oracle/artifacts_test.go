package oracle

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/oracle/change"
	"github.com/agent-oracle/oracle/oracle/report"
	"github.com/agent-oracle/oracle/runner"
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
	if err := os.Remove(store.Path(k, runner.CallsFile)); err != nil {
		t.Fatal(err)
	}
	res := check(t, store, e)
	want := map[string]report.Status{"ledger/solver/TASK-001": report.StatusMissing, "ledger/solver/TASK-002": report.StatusUnchanged}
	if diff := cmp.Diff(want, statuses(res.Report)); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	files := res.Report.Cases[0].Files
	if len(files) != 1 || files[0].File != runner.CallsFile || files[0].State != change.FileMissing {
		t.Errorf("files of the missing case: %+v", files)
	}
	if _, ok := res.Fresh[k]; !ok {
		t.Error("the fresh artifacts of the missing case are not kept")
	}
	rep := record(t, store, e)
	if rep.Cases[0].Status != RecordWrote || rep.Cases[1].Status != RecordKept {
		t.Errorf("record: %+v", rep.Cases)
	}
	if _, err := os.Stat(store.Path(k, runner.CallsFile)); err != nil {
		t.Errorf("record did not add calls.json: %v", err)
	}
	if res := check(t, store, e); res.Report.Summary.Unchanged != res.Report.Summary.Total {
		t.Errorf("check after record: %+v", res.Report.Summary)
	}
}

// TestFreezeFiles: an environment that opts out of calls.json in its
// manifest neither compares nor writes it, --artifacts overrides the
// manifest, and a baseline file of an artifact not frozen is left alone.
func TestFreezeFiles(t *testing.T) {
	project := t.TempDir()
	store := baseline.Open(project)
	e := newLedger(t, ledgerOpts{tasks: 1})
	k := baseline.Key{Env: "ledger", Agent: "solver", Task: "TASK-001"}
	record(t, store, e) // all three files
	manifest := filepath.Join(project, env.ManifestPath("ledger"))
	os.MkdirAll(filepath.Dir(manifest), 0o755)
	os.WriteFile(manifest, []byte(`{"name":"ledger","entrypoint":"ledger","tools":[],"baselines":["result","state-diff"]}`), 0o644)
	calls := store.Path(k, runner.CallsFile)
	os.WriteFile(calls, []byte("[]\n"), 0o644) // would differ if compared

	// the cases of the project, their files set as FreezeFiles sets them
	frozen := func(override []string) (CaseStream, error) {
		t.Helper()
		s, err := Select(project, []env.Environment{e}, Selection{}, storedKeys())
		if err != nil {
			t.Fatal(err)
		}
		return s.Cases, s.FreezeFiles(project, override)
	}
	files := func(override []string) []string {
		t.Helper()
		cs, err := frozen(override)
		if err != nil {
			t.Fatal(err)
		}
		return slices.Collect(cs.All)[0].Files
	}
	if got := files(nil); !cmp.Equal(got, []string{"result.json", "state-diff.json"}) {
		t.Errorf("files from the manifest = %q", got)
	}
	if got := files([]string{"calls"}); !cmp.Equal(got, []string{"calls.json"}) {
		t.Errorf("files from --artifacts calls = %q", got)
	}
	cs, err := frozen(nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := checkAll(context.Background(), store, cs, Selection{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Report.Summary.Unchanged != res.Report.Summary.Total {
		t.Errorf("check compared calls.json though the manifest opts out: %+v", res.Report.Cases[0])
	}
	if _, err := Record(context.Background(), store, cs, Selection{}, RecordOptions{}); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(calls); string(data) != "[]\n" {
		t.Errorf("record touched the calls.json it does not freeze: %q", data)
	}
	if cs, err = frozen([]string{"calls"}); err != nil {
		t.Fatal(err)
	}
	res, err = checkAll(context.Background(), store, cs, Selection{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Report.Cases[0].Status != report.StatusChanged || len(res.Report.Cases[0].Files) != 1 || res.Report.Cases[0].Files[0].File != runner.CallsFile {
		t.Errorf("--artifacts calls: %+v", res.Report.Cases[0])
	}

	for _, bad := range []string{`{"name":"ledger","entrypoint":"x","baselines":["trace"]}`, `{"name":"ledger","entrypoint":"x","baselines":[]}`} {
		os.WriteFile(manifest, []byte(bad), 0o644)
		if _, err := frozen(nil); err == nil {
			t.Errorf("manifest %s: no error", bad)
		}
	}
	if _, err := frozen([]string{"result", "nope"}); err == nil || !strings.Contains(err.Error(), `unknown artifact "nope"`) {
		t.Errorf("--artifacts nope: %v", err)
	}
}
