package oracle

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/oracle/report"
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
			if c.Status != report.StatusUnchanged || c.OldVerdict != c.NewVerdict || c.OldReward == nil {
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
		if c.Status == report.StatusChanged && (res.Fresh[k].Result == nil || len(res.Traces[k]) == 0) {
			t.Errorf("%s changed without its fresh artifacts and trace", c.Case)
		}
	}
}

// renamed is an environment under another name.
type renamed struct {
	env.Environment
	name string
}

func (r renamed) Name() string { return r.name }

// Select makes the regression cases of the environments, whatever their
// order, in key order, every selection and shard of them, as often as it
// is asked, with Len counting them.
func TestSelectMakesTheRegressionCasesInKeyOrder(t *testing.T) {
	l := newLedger(t, ledgerOpts{tasks: 12})
	envs := []env.Environment{renamed{l, "zeta"}, l, renamed{l, "alpha"}}
	tasks, err := l.Tasks()
	if err != nil {
		t.Fatal(err)
	}
	for _, sel := range []Selection{
		{},
		{Tasks: []string{"TASK-00[2-7]"}},
		{Envs: []string{"zeta", "alpha"}, Shard: Shard{Index: 2, Count: 3}},
		{Agents: []string{"sol*"}, Shard: Shard{Index: 1, Count: 2}},
	} {
		var want []string // every environment × agent × task, then sorted
		for _, e := range envs {
			for _, a := range e.RegressionAgents() {
				for _, tk := range tasks {
					if k := (baseline.Key{Env: e.Name(), Agent: a, Task: tk.ID}); sel.Selects(k) {
						want = append(want, k.String()+" "+a+" "+tk.ID+" "+e.Name())
					}
				}
			}
		}
		slices.Sort(want)
		s, err := Select(t.TempDir(), envs, sel, storedKeys())
		if err != nil {
			t.Fatal(err)
		}
		for range 2 { // a stream can be walked again
			key := func(c Case) string { return c.Key.String() + " " + c.AgentRef + " " + c.Task.ID + " " + c.Env.Name() }
			if diff := cmp.Diff(want, mapList(slices.Collect(s.Cases.All), key)); diff != "" {
				t.Errorf("%+v (-product +Select):\n%s", sel, diff)
			}
			if s.Cases.Len != len(want) {
				t.Errorf("%+v: Len %d, %d cases", sel, s.Cases.Len, len(want))
			}
		}
	}
}

func mapList[T any](list []T, f func(T) string) []string {
	out := []string{}
	for _, x := range list {
		out = append(out, f(x))
	}
	return out
}

// CheckEach hands on every case and every obsolete baseline in key order,
// the obsolete ones in their place among the cases, counts them in the
// summary, and stops at the first error of its callback.
func TestCheckEachInKeyOrder(t *testing.T) {
	store := &baseline.Store{Root: t.TempDir()}
	e := newLedger(t, ledgerOpts{tasks: 12})
	record(t, store, e)
	for _, k := range []baseline.Key{{Env: "aaa", Agent: "solver", Task: "T"}, {Env: "ledger", Agent: "solver", Task: "TASK-0055"},
		{Env: "ledger", Agent: "solver", Task: "TASK-999"}, {Env: "ledger", Agent: "a", Task: "TASK-001"}, {Env: "zzz", Agent: "solver", Task: "T"}} {
		if _, err := store.Write(k, baseline.Entry{Result: []byte("{}\n")}); err != nil {
			t.Fatal(err)
		}
	}
	stream := selected(t, Selection{}, e).Cases
	var got []string
	rep, err := CheckEach(context.Background(), store, stream, Selection{}, Options{Jobs: 3}, func(cr *report.Case, kept *Kept) error {
		got = append(got, cr.Case+" "+string(cr.Status))
		if kept != nil {
			t.Errorf("%s kept its fresh artifacts", cr.Case)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"aaa/solver/T obsolete", "ledger/a/TASK-001 obsolete"}
	for i := 1; i <= 12; i++ {
		want = append(want, fmt.Sprintf("ledger/solver/TASK-%03d unchanged", i))
		if i == 5 {
			want = append(want, "ledger/solver/TASK-0055 obsolete")
		}
	}
	want = append(want, "ledger/solver/TASK-999 obsolete", "zzz/solver/T obsolete")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	whole := check(t, store, e)
	if diff := cmp.Diff(whole.Report.Summary, rep.Summary); diff != "" {
		t.Errorf("summary (-Check +CheckEach):\n%s", diff)
	}
	if len(rep.Cases) != 0 || rep.Selection.Cases != 12 {
		t.Errorf("CheckEach's report holds %d cases, selection of %d", len(rep.Cases), rep.Selection.Cases)
	}
	for i, cr := range whole.Report.Cases {
		if s := cr.Case + " " + string(cr.Status); s != want[i] {
			t.Errorf("Check's case %d is %s, want %s", i, s, want[i])
		}
	}

	stop := errors.New("stop")
	calls := 0
	_, err = CheckEach(context.Background(), store, stream, Selection{}, Options{Jobs: 2}, func(*report.Case, *Kept) error {
		if calls++; calls == 4 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || calls != 4 {
		t.Errorf("after a failing callback: %v, %d calls", err, calls)
	}
}

// Record writes the files of a case while later cases still run, but a
// case that fails to run, even after others were written that way, leaves
// the store as it was: the old baselines' bytes, no temporary file, no
// folder made.
func TestRecordWritesNothingWhenACaseFails(t *testing.T) {
	root := filepath.Join(t.TempDir(), "baselines")
	store := &baseline.Store{Root: root}
	rep, err := Record(context.Background(), store, streamOf(cases(t, newLedger(t, ledgerOpts{tasks: 30, failOpen: "TASK-027"}))), Selection{}, RecordOptions{Options: Options{Jobs: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Count(RecordError) != 1 || rep.Count(RecordNotWritten) != 29 {
		t.Fatalf("%d errors, %d not written", rep.Count(RecordError), rep.Count(RecordNotWritten))
	}
	if entries, _ := os.ReadDir(root); len(entries) != 1 || entries[0].Name() != ".lock" {
		t.Errorf("the new store holds %v", entries)
	}

	record(t, store, newLedger(t, ledgerOpts{tasks: 30}))
	before := storeFiles(t, root)
	mutant := newLedger(t, ledgerOpts{tasks: 30, feeFactor: 1.5, failOpen: "TASK-027"})
	if _, err := Record(context.Background(), store, streamOf(cases(t, mutant)), Selection{}, RecordOptions{Options: Options{Jobs: 2}}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, storeFiles(t, root)); diff != "" {
		t.Errorf("the store changed (-before +after):\n%s", diff)
	}
}

// storeFiles maps each file under root (the lock aside) to its bytes.
func storeFiles(t *testing.T, root string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == ".lock" {
			return err
		}
		data, err := os.ReadFile(path)
		files[path] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
