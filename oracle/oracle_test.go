package oracle

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/oracle/change"
	"github.com/agent-oracle/oracle/oracle/report"
	"github.com/google/go-cmp/cmp"
)

// ledger is a small world for the oracle's tests: up to ten accounts with
// balances and a fee rate, where a tool and the verifier share one helper
// (fee). Task i charges account A-((i-1)%10+1).
type ledger struct {
	Rate     float64   `json:"rate"`
	Accounts []account `json:"accounts"`
	Nonce    int64     `json:"nonce,omitempty"`
}

type account struct {
	ID      string  `json:"id"`
	Balance float64 `json:"balance"`
}

type ledgerOpts struct {
	feeFactor float64 // the shared helper's formula: a mutant changes it
	tasks     int
	flaky     bool   // the state carries a value that changes every rollout
	failOpen  string // the task whose world cannot be made: its case fails to run
}

func newLedger(t testing.TB, o ledgerOpts) env.Environment {
	t.Helper()
	if o.feeFactor == 0 {
		o.feeFactor = 1
	}
	if o.tasks == 0 {
		o.tasks = 3
	}
	fee := func(s *ledger, amount float64) float64 { return amount * s.Rate * o.feeFactor }
	var nonce atomic.Int64
	files := fstest.MapFS{}
	var verifiers []env.Verifier[ledger]
	for i := 1; i <= o.tasks; i++ {
		id := fmt.Sprintf("TASK-%03d", i)
		files["tasks/"+id+".json"] = &fstest.MapFile{Data: []byte(fmt.Sprintf(
			`{"id":%q,"title":"Charge A-%d","instruction":"Charge the fee on 100 to A-%d.","verifierId":"VER-%03d"}`, id, (i-1)%10+1, (i-1)%10+1, i))}
		acct := fmt.Sprintf("A-%d", (i-1)%10+1)
		verifiers = append(verifiers, env.Verifier[ledger]{ID: fmt.Sprintf("VER-%03d", i), TaskID: id, Name: "fee charged",
			Check: func(final, initial *ledger, c env.VerifyContext) []env.CheckResult {
				var before, after float64
				for _, a := range initial.Accounts {
					if a.ID == acct {
						before = a.Balance
					}
				}
				for _, a := range final.Accounts {
					if a.ID == acct {
						after = a.Balance
					}
				}
				want := before - fee(initial, 100)
				return []env.CheckResult{env.Check("fee charged", after == want, fmt.Sprintf("balance %v, expected %v", after, want))}
			}})
	}
	solver := env.AgentFunc(func(ctx context.Context, in env.AgentInput) (any, error) {
		var acct string
		fmt.Sscanf(in.Task[strings.Index(in.Task, "A-"):], "A-%s", &acct)
		acct = "A-" + strings.TrimSuffix(acct, ".")
		r := in.Call(ctx, "charge", map[string]any{"id": acct, "amount": 100})
		return string(r.Output), nil
	})
	e, err := env.New(env.Definition[ledger]{
		Name:      "ledger",
		TaskFiles: files,
		NewState: func(task env.Task) (*ledger, error) {
			if task.ID == o.failOpen {
				return nil, fmt.Errorf("no world for %s", task.ID)
			}
			s := &ledger{Rate: 0.1}
			for i := 1; i <= min(o.tasks, 10); i++ {
				s.Accounts = append(s.Accounts, account{ID: fmt.Sprintf("A-%d", i), Balance: 1000})
			}
			if o.flaky {
				s.Nonce = nonce.Add(1)
			}
			return s, nil
		},
		Tools: []env.Tool[ledger]{{
			Name: "charge", Description: "Charges the fee on an amount.",
			InputSchema: `{"type":"object","properties":{"id":{"type":"string"},"amount":{"type":"number"}},"required":["id","amount"]}`,
			Run: env.Typed(func(_ context.Context, s *ledger, in struct {
				ID     string  `json:"id"`
				Amount float64 `json:"amount"`
			}) (any, error) {
				for i := range s.Accounts {
					if s.Accounts[i].ID == in.ID {
						s.Accounts[i].Balance -= fee(s, in.Amount)
						if o.flaky {
							s.Nonce = nonce.Add(1)
						}
						return s.Accounts[i], nil
					}
				}
				return nil, env.Errorf("not_found", "no account %s", in.ID)
			}),
		}},
		Verifiers: verifiers,
		Agents:    map[string]env.Agent{"solver": solver},
	})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// selected is what Select makes of sel for envs in a project with no
// trace and no baseline.
func selected(t testing.TB, sel Selection, envs ...env.Environment) *Selected {
	t.Helper()
	s, err := Select(t.TempDir(), envs, sel, storedKeys())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// cases are the regression cases of envs, in key order.
func cases(t testing.TB, envs ...env.Environment) []Case {
	t.Helper()
	return slices.Collect(selected(t, Selection{}, envs...).Cases.All)
}

// streamOf is a stream of cases sorted by key.
func streamOf(cases []Case) CaseStream {
	cases = slices.Clone(cases)
	slices.SortFunc(cases, byKey)
	return CaseStream{Len: len(cases), All: slices.Values(cases)}
}

func record(t testing.TB, store *baseline.Store, e env.Environment) *RecordReport {
	t.Helper()
	rep, err := Record(context.Background(), store, selected(t, Selection{}, e).Cases, Selection{}, RecordOptions{Options: Options{Jobs: 4}})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// checked is a whole check: its report with every case, and the fresh
// artifacts and traces of the cases that did not match.
type checked struct {
	Report *report.Report
	Fresh  map[baseline.Key]baseline.Entry
	Traces map[baseline.Key][]byte
}

// checkAll is CheckEach with every case kept.
func checkAll(ctx context.Context, store *baseline.Store, cases CaseStream, sel Selection, opts Options) (*checked, error) {
	res := &checked{Fresh: map[baseline.Key]baseline.Entry{}, Traces: map[baseline.Key][]byte{}}
	var list []*report.Case
	rep, err := CheckEach(ctx, store, cases, sel, opts, func(cr *report.Case, kept *Kept) error {
		list = append(list, cr)
		if kept != nil {
			res.Fresh[cr.Key()] = kept.Entry
			if kept.Traced {
				res.Traces[cr.Key()] = kept.Trace
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	rep.Cases = append(rep.Cases, list...)
	res.Report = rep
	return res, nil
}

func check(t testing.TB, store *baseline.Store, e env.Environment) *checked {
	t.Helper()
	res, err := checkAll(context.Background(), store, selected(t, Selection{}, e).Cases, Selection{}, Options{Jobs: 4})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func statuses(r *report.Report) map[string]report.Status {
	m := map[string]report.Status{}
	for _, c := range r.Cases {
		m[c.Case] = c.Status
	}
	return m
}

func TestRecordThenCheckUnchanged(t *testing.T) {
	store := &baseline.Store{Root: t.TempDir()}
	e := newLedger(t, ledgerOpts{})
	rep := record(t, store, e)
	if rep.Count(RecordWrote) != 3 || len(rep.Cases) != 3 {
		t.Fatalf("record: %+v", rep)
	}
	if again := record(t, store, e); again.Count(RecordKept) != 3 || again.Count(RecordWrote) != 0 {
		t.Errorf("second record wrote again: %+v", again)
	}
	res := check(t, store, e)
	if res.Report.Summary.Total != 3 || res.Report.Summary.Unchanged != 3 {
		t.Errorf("check: %+v", res.Report.Summary)
	}
}

// TestMutantIsCaught is the reason the oracle exists: the verifier derives
// its expectation through the same helper as the tool, so a wrong formula
// still passes grading, and only the baseline catches it.
func TestMutantIsCaught(t *testing.T) {
	store := &baseline.Store{Root: t.TempDir()}
	record(t, store, newLedger(t, ledgerOpts{}))
	mutant := newLedger(t, ledgerOpts{feeFactor: 1.5})
	res := check(t, store, mutant)
	if res.Report.Summary.Total != 3 || res.Report.Summary.Changed != 3 {
		t.Fatalf("check of the mutant: %+v", res.Report.Summary)
	}
	c := res.Report.Cases[0]
	if c.NewVerdict != "pass" || c.Label != "" {
		t.Errorf("the mutant should still pass its verifier: %+v", c)
	}
	var paths []string
	for _, f := range c.Files {
		for _, ch := range f.Changes {
			paths = append(paths, f.File+" "+ch.Location()+" "+string(ch.From)+" → "+string(ch.To))
		}
		for _, m := range f.Members {
			for _, fd := range m.Fields {
				paths = append(paths, f.File+" "+m.Name()+" "+m.What()+" "+fd.Path+" to "+string(fd.Was.To)+" → "+string(fd.Now.To))
			}
		}
	}
	want := []string{
		"result.json /agentOutput \"{\\\"id\\\":\\\"A-1\\\",\\\"balance\\\":990}\" → \"{\\\"id\\\":\\\"A-1\\\",\\\"balance\\\":985}\"",
		"result.json /checks/0/detail \"balance 990, expected 990\" → \"balance 985, expected 985\"",
		"state-diff.json accounts A-1 changed differently /balance to 990 → 985",
		"calls.json #1 charge output /balance 990 → 985",
	}
	if diff := cmp.Diff(want, paths); diff != "" {
		t.Errorf("changed paths (-want +got):\n%s", diff)
	}
	if len(res.Fresh) != 3 {
		t.Errorf("fresh artifacts kept for %d cases, want 3", len(res.Fresh))
	}
}

func TestCheckStatuses(t *testing.T) {
	store := &baseline.Store{Root: t.TempDir()}
	e := newLedger(t, ledgerOpts{tasks: 3})
	record(t, store, e)
	// a baseline edited by hand, one deleted, one with no case
	path := store.Path(baseline.Key{Env: "ledger", Agent: "solver", Task: "TASK-001"}, "result.json")
	data, _ := os.ReadFile(path)
	data = bytes.Replace(data, []byte(`"passed": true`), []byte(`"passed": false`), 1)
	os.WriteFile(path, bytes.Replace(data, []byte(`"verdict": "pass"`), []byte(`"verdict": "fail"`), 1), 0o644)
	for _, name := range baseline.Files {
		os.Remove(store.Path(baseline.Key{Env: "ledger", Agent: "solver", Task: "TASK-002"}, name))
	}
	store.Write(baseline.Key{Env: "ledger", Agent: "solver", Task: "TASK-099"}, baseline.Entry{Result: []byte("{}\n")})
	res := check(t, store, e)
	want := map[string]report.Status{
		"ledger/solver/TASK-001": report.StatusChanged,
		"ledger/solver/TASK-002": report.StatusMissing,
		"ledger/solver/TASK-003": report.StatusUnchanged,
		"ledger/solver/TASK-099": report.StatusObsolete,
	}
	if diff := cmp.Diff(want, statuses(res.Report)); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	c := res.Report.Cases[0]
	if c.Label != change.LabelImprovement || len(c.Files) != 1 || len(c.Files[0].Changes) != 2 || c.Files[0].Changes[1].Path != "/verdict" {
		t.Errorf("hand-edited case: label %q, files %+v", c.Label, c.Files)
	}
	// check never writes a baseline
	if _, err := store.Read(baseline.Key{Env: "ledger", Agent: "solver", Task: "TASK-002"}); err == nil {
		t.Error("check wrote a missing baseline")
	}
}

func TestNondeterministicIsRefusedAndReported(t *testing.T) {
	store := &baseline.Store{Root: t.TempDir()}
	flaky := newLedger(t, ledgerOpts{flaky: true, tasks: 1})
	rep := record(t, store, flaky)
	if rep.Count(RecordRefused) != 1 || len(rep.Cases) != 1 {
		t.Fatalf("record of a flaky case: %+v", rep)
	}
	if d := rep.Cases[0].Divergence; d == nil || !strings.Contains(d.String(), "scalar nonce changed differently: ") {
		t.Errorf("divergence = %v, want the first differing path", d)
	}
	if keys, _ := store.List(); len(keys) != 0 {
		t.Errorf("a nondeterministic case was frozen: %v", keys)
	}
	res := check(t, store, flaky)
	if s := statuses(res.Report)["ledger/solver/TASK-001"]; s != report.StatusNondeterministic {
		t.Errorf("check status %s", s)
	}
}

func TestUnreadableBaselineIsAnError(t *testing.T) {
	store := &baseline.Store{Root: t.TempDir()}
	e := newLedger(t, ledgerOpts{tasks: 1})
	record(t, store, e)
	path := store.Path(baseline.Key{Env: "ledger", Agent: "solver", Task: "TASK-001"}, "result.json")
	os.WriteFile(path, []byte(`{"passed": tr`), 0o644)
	res := check(t, store, e)
	c := res.Report.Cases[0]
	if c.Status != report.StatusError || !strings.Contains(c.Error, path) || res.Report.Summary.Error != 1 {
		t.Errorf("case %+v, summary %+v", c, res.Report.Summary)
	}
}

func TestShardsPartitionAndMerge(t *testing.T) {
	store := &baseline.Store{Root: t.TempDir()}
	e := newLedger(t, ledgerOpts{tasks: 20})
	record(t, store, e)
	dir := t.TempDir()
	var files []string
	total := 0
	for i := 1; i <= 3; i++ {
		sel := Selection{Shard: Shard{i, 3}}
		res, err := checkAll(context.Background(), store, selected(t, sel, e).Cases, sel, Options{Jobs: 2})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Report.Cases) == 0 {
			t.Errorf("shard %d of 3 holds no case of 20", i)
		}
		total += len(res.Report.Cases)
		res.Report.Selection.Cases = 20
		b, _ := json.Marshal(res.Report)
		f := filepath.Join(dir, fmt.Sprintf("shard%d.json", i))
		os.WriteFile(f, b, 0o644)
		files = append(files, f)
	}
	if total != 20 {
		t.Errorf("shards hold %d cases together, want 20", total)
	}
	merged, err := MergeReports(files)
	if err != nil {
		t.Fatal(err)
	}
	if merged.Summary.Total != 20 || merged.Summary.Unchanged != 20 {
		t.Errorf("merged summary %+v", merged.Summary)
	}
	if _, err := MergeReports([]string{files[0], files[0]}); err == nil {
		t.Error("merging a shard with itself succeeded")
	}
}

func TestSelection(t *testing.T) {
	e := newLedger(t, ledgerOpts{tasks: 12})
	tests := []struct {
		sel  Selection
		want int
	}{
		{Selection{}, 12},
		{Selection{Tasks: []string{"TASK-00?"}}, 9},
		{Selection{Tasks: []string{"TASK-001", "TASK-012"}}, 2},
		{Selection{Envs: []string{"crm"}}, 0},
		{Selection{Agents: []string{"sol*"}}, 12},
	}
	for _, tt := range tests {
		got := slices.Collect(regressionCases([]env.Environment{e}, tt.sel))
		if len(got) != tt.want {
			t.Errorf("regressionCases(%+v) = %d cases; want %d", tt.sel, len(got), tt.want)
		}
	}
	if _, err := Select(t.TempDir(), []env.Environment{e}, Selection{Tasks: []string{"["}}, storedKeys()); err == nil {
		t.Error("a bad glob was accepted")
	}
	for _, bad := range []string{"0/3", "4/3", "1", "a/b", "1/0"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q) succeeded", bad)
		}
	}
}
