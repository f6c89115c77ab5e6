package oracle

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/env"
	"github.com/google/go-cmp/cmp"
)

// TestSelectNeverEmptyByAccident: a literal name that names nothing is a
// coded not-found error listing what exists, and a selection that holds no
// case is an error; an empty shard of a selection is not.
func TestSelectNeverEmptyByAccident(t *testing.T) {
	envs := []env.Environment{newLedger(t, ledgerOpts{tasks: 3})}
	stored := []baseline.Key{{Env: "ledger", Agent: "retired", Task: "TASK-001"}}
	tests := []struct {
		name  string
		sel   Selection
		code  string // the env.Error code, or "" for another error
		want  string // in the error; "" means no error
		cases int
	}{
		{"everything", Selection{}, "", "", 3},
		{"literal task", Selection{Tasks: []string{"TASK-009"}}, env.CodeTaskNotFound, "no task TASK-009 in the environments; tasks: TASK-001, TASK-002, TASK-003", 0},
		{"literal env", Selection{Envs: []string{"nope"}}, env.CodeEnvNotFound, "no environment nope; environments: ledger", 0},
		{"literal agent", Selection{Agents: []string{"nobody"}}, env.CodeAgentNotFound, "no agent nobody in the environments; agents: retired, solver", 0},
		{"exec agent", Selection{Agents: []string{"exec:./a"}}, env.CodeAgentNotFound, "agent exec:./a names no case", 0},
		{"glob", Selection{Tasks: []string{"TSAK-*"}}, "", "no case matches task 'TSAK-*'; tasks: TASK-001, TASK-002, TASK-003", 0},
		{"glob env", Selection{Envs: []string{"x*"}}, "", "no case matches env 'x*'; environments: ledger", 0},
		{"only a baseline", Selection{Agents: []string{"retired"}}, "", "", 0},
		{"empty shard", Selection{Tasks: []string{"TASK-001"}, Shard: emptyShard(t, baseline.Key{Env: "ledger", Agent: "solver", Task: "TASK-001"})}, "", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Select(t.TempDir(), envs, tt.sel, storedKeys(stored...))
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if n := len(keysOf(got.Cases)); got.Cases.Len != tt.cases || n != tt.cases {
					t.Errorf("Len %d, %d cases made, want %d", got.Cases.Len, n, tt.cases)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want it to hold %q", err, tt.want)
			}
			var coded *env.Error
			if isCoded := errors.As(err, &coded); tt.code != "" && (!isCoded || coded.Code != tt.code || len(coded.Known) == 0) {
				t.Errorf("error %#v, want code %s with what exists", err, tt.code)
			}
			if tt.code == "" && !errors.Is(err, ErrNothingSelected) {
				t.Errorf("error %v is not ErrNothingSelected", err)
			}
		})
	}
}

// TestSelectErrorsNameAFewOfManyNames: an error about a name among many
// lists the first of them and counts the rest, so it stays a line a person
// reads; Known still holds them all.
func TestSelectErrorsNameAFewOfManyNames(t *testing.T) {
	envs := []env.Environment{newLedger(t, ledgerOpts{tasks: env.NameListMax + 5})}
	for _, sel := range []Selection{{Tasks: []string{"TASK-999"}}, {Tasks: []string{"NOPE-*"}}} {
		_, err := Select(t.TempDir(), envs, sel, storedKeys())
		if err == nil || !strings.Contains(err.Error(), "TASK-020, … and 5 more") || strings.Contains(err.Error(), "TASK-021") {
			t.Errorf("%v: error %v", sel.Tasks, err)
		}
		var coded *env.Error
		if errors.As(err, &coded) && len(coded.Known) != env.NameListMax+5 {
			t.Errorf("%v: Known holds %d names, want %d", sel.Tasks, len(coded.Known), env.NameListMax+5)
		}
	}
}

// keysOf returns the keys a stream makes, in its order.
func keysOf(s CaseStream) []baseline.Key {
	var keys []baseline.Key
	for c := range s.All {
		keys = append(keys, c.Key)
	}
	return keys
}

// TestSelectStreamsTheCases: the selected cases are made in key order,
// replay cases among the regression ones, as often as they are asked for;
// the shards of a selection make each case once between them, and Len and
// Total count what is made.
func TestSelectStreamsTheCases(t *testing.T) {
	e := newLedger(t, ledgerOpts{tasks: 12})
	envs := []env.Environment{e}
	dir := t.TempDir()
	var want []baseline.Key
	for _, c := range cases(t, e) {
		want = append(want, c.Key)
	}
	// replay agents sorting before and after the regression agent
	for _, tr := range []struct{ agent, task string }{{"alpha", "TASK-003"}, {"alpha", "TASK-011"}, {"zeta", "TASK-001"}} {
		src := solverTrace(t, e, tr.task, t.TempDir())
		dst := filepath.Join(dir, TracesDir, "ledger", tr.agent, tr.task+traceLinesSuffix)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
		want = append(want, baseline.Key{Env: "ledger", Agent: tr.agent, Task: tr.task})
	}
	slices.SortFunc(want, baseline.Key.Compare)

	got, err := Select(dir, envs, Selection{}, storedKeys())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, keysOf(got.Cases)); diff != "" {
		t.Errorf("cases (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, keysOf(got.Cases)); diff != "" {
		t.Errorf("cases made a second time (-want +got):\n%s", diff)
	}
	if got.Cases.Len != len(want) || got.Total != len(want) {
		t.Errorf("Len %d, Total %d, want %d", got.Cases.Len, got.Total, len(want))
	}
	for _, n := range []int{2, 3} {
		var union []baseline.Key
		for i := 1; i <= n; i++ {
			part, err := Select(dir, envs, Selection{Shard: Shard{i, n}}, storedKeys())
			if err != nil {
				t.Fatal(err)
			}
			keys := keysOf(part.Cases)
			if part.Cases.Len != len(keys) || part.Total != len(want) {
				t.Errorf("shard %d/%d: Len %d, Total %d; made %d, want Total %d", i, n, part.Cases.Len, part.Total, len(keys), len(want))
			}
			if !slices.IsSortedFunc(keys, baseline.Key.Compare) {
				t.Errorf("shard %d/%d: not in key order: %v", i, n, keys)
			}
			union = append(union, keys...)
		}
		slices.SortFunc(union, baseline.Key.Compare)
		if diff := cmp.Diff(want, union); diff != "" {
			t.Errorf("the %d shards together (-want +got):\n%s", n, diff)
		}
	}
	// a narrower selection streams only what it selects
	got, err = Select(dir, envs, Selection{Agents: []string{"alpha"}}, storedKeys())
	if err != nil {
		t.Fatal(err)
	}
	wantAlpha := []baseline.Key{{Env: "ledger", Agent: "alpha", Task: "TASK-003"}, {Env: "ledger", Agent: "alpha", Task: "TASK-011"}}
	if diff := cmp.Diff(wantAlpha, keysOf(got.Cases)); diff != "" || got.Total != 2 {
		t.Errorf("alpha: Total %d, cases (-want +got):\n%s", got.Total, diff)
	}
}

// twiceListed is an environment that lists its regression agent twice.
type twiceListed struct{ env.Environment }

func (e twiceListed) RegressionAgents() []string {
	a := e.Environment.RegressionAgents()
	return append(a, a...)
}

// taskTwice is an environment that lists one of its tasks twice.
type taskTwice struct {
	env.Environment
	id string
}

func (e taskTwice) Tasks() ([]env.Task, error) {
	tasks, err := e.Environment.Tasks()
	for _, t := range tasks {
		if t.ID == e.id {
			tasks = append(slices.Clone(tasks), t)
		}
	}
	return tasks, err
}

// TestSelectRefusesACaseListedTwice: an environment (of any
// implementation) whose cases the selection would hold twice, by an agent
// or a task it lists twice, is refused, as two sources of one key are; a
// selection without the case is not.
func TestSelectRefusesACaseListedTwice(t *testing.T) {
	l := newLedger(t, ledgerOpts{tasks: 3})
	for _, tt := range []struct {
		name string
		env  env.Environment
		sel  Selection
		want string // "" when the selection does not hold the case twice
	}{
		{"agent", twiceListed{l}, Selection{}, "ledger/solver/TASK-001"},
		{"agent, one task", twiceListed{l}, Selection{Tasks: []string{"TASK-003"}}, "ledger/solver/TASK-003"},
		{"task", taskTwice{l, "TASK-002"}, Selection{}, "ledger/solver/TASK-002"},
		{"task, not selected", taskTwice{l, "TASK-002"}, Selection{Tasks: []string{"TASK-001", "TASK-003"}}, ""},
	} {
		_, err := Select(t.TempDir(), []env.Environment{tt.env}, tt.sel, storedKeys())
		want := "case " + tt.want + " comes from two sources: the regression agent solver of ledger and the regression agent solver of ledger"
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		}
	}
}

// storedKeys lists keys as the baselines of a project, for Select.
func storedKeys(keys ...baseline.Key) func() ([]baseline.Key, error) {
	return func() ([]baseline.Key, error) { return keys, nil }
}

// TestSelectListsTheBaselinesOnlyWhenItMust: the baselines are listed
// (which walks the whole store) only for a name found nowhere else or a
// selection that holds no case; a listing that fails is the error then.
func TestSelectListsTheBaselinesOnlyWhenItMust(t *testing.T) {
	envs := []env.Environment{newLedger(t, ledgerOpts{tasks: 3})}
	broken := errors.New("store unreadable")
	tests := []struct {
		name   string
		sel    Selection
		listed bool
	}{
		{"everything", Selection{}, false},
		{"names found", Selection{Envs: []string{"ledger"}, Agents: []string{"solver"}, Tasks: []string{"TASK-002"}}, false},
		{"globs", Selection{Tasks: []string{"TASK-00*"}}, false},
		{"an agent only a baseline may have", Selection{Agents: []string{"retired"}}, true},
		{"a task only a baseline may have", Selection{Tasks: []string{"TASK-009"}}, true},
		{"a glob that selects no case", Selection{Tasks: []string{"OLD-*"}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			listed := false
			_, err := Select(t.TempDir(), envs, tt.sel, func() ([]baseline.Key, error) {
				listed = true
				return nil, broken
			})
			if listed != tt.listed {
				t.Errorf("listed %v, want %v", listed, tt.listed)
			}
			if tt.listed != errors.Is(err, broken) {
				t.Errorf("error %v", err)
			}
		})
	}
}

// emptyShard returns a shard of 2 that does not hold k.
func emptyShard(t *testing.T, k baseline.Key) Shard {
	for i := 1; i <= 2; i++ {
		if s := (Shard{i, 2}); !s.Has(k) {
			return s
		}
	}
	t.Fatal("no shard misses the key")
	return Shard{}
}

// TestSelectRefusesTwoSources: a replay trace whose folder is a regression
// agent's name makes a key two sources produce.
func TestSelectRefusesTwoSources(t *testing.T) {
	envs := []env.Environment{newLedger(t, ledgerOpts{tasks: 1})}
	dir := t.TempDir()
	trace := filepath.Join(dir, TracesDir, "ledger", "solver", "TASK-001"+traceLinesSuffix)
	if err := os.MkdirAll(filepath.Dir(trace), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(trace, []byte(`{"type":"run_start","environment":"ledger","task":{"id":"TASK-001"}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Select(dir, envs, Selection{}, storedKeys())
	if err == nil || !strings.Contains(err.Error(), "case ledger/solver/TASK-001 comes from two sources: the regression agent solver of ledger and the trace ") {
		t.Errorf("error %v", err)
	}
	// a stored trace is held to the case its path names
	if err := os.WriteFile(trace, []byte(`{"type":"run_start","environment":"ledger","task":{"id":"TASK-002"}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Select(dir, envs, Selection{}, storedKeys())
	if err == nil || !strings.Contains(err.Error(), "its run_start names ledger/TASK-002, its path ledger/TASK-001; move the trace to the folder of its case or delete it") {
		t.Errorf("error %v", err)
	}
}
