package oracle

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/internal/canon"
	"github.com/agent-oracle/oracle/oracle/report"
	"github.com/google/go-cmp/cmp"
)

// shardFiles writes the JSON report of each of n shards of the cases
// (key → status) of the selection sel and returns their paths, shard 1
// first; edit, when set, edits a report before it is written.
func shardFiles(t *testing.T, sel Selection, n int, cases map[baseline.Key]report.Status, edit func(i int, r *report.Report)) []string {
	t.Helper()
	dir := t.TempDir()
	total := 0
	for _, s := range cases {
		if s != report.StatusObsolete {
			total++
		}
	}
	var paths []string
	for i := 1; i <= n; i++ {
		sh := sel
		sh.Shard = Shard{i, n}
		if n == 1 {
			sh.Shard = Shard{}
		}
		r := newReport(sh, 0)
		r.Oracle = "1.2.3"
		r.Selection.Cases = total
		for k, s := range cases {
			if sh.Shard.Has(k) {
				cr := newCaseReport(k)
				cr.Status = s
				r.Cases = append(r.Cases, cr)
			}
		}
		r.Finish()
		if edit != nil {
			edit(i, r)
		}
		paths = append(paths, writeShard(t, dir, i, r))
	}
	return paths
}

// writeShard writes r as the report of shard i in dir, and returns its path.
func writeShard(t *testing.T, dir string, i int, r *report.Report) string {
	t.Helper()
	data, err := canon.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, fmt.Sprintf("s%d.json", i))
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// someCases are cases of crm spread over the shards of 3: at least one in
// each.
func someCases(t *testing.T) map[baseline.Key]report.Status {
	t.Helper()
	statuses := []report.Status{report.StatusUnchanged, report.StatusChanged, report.StatusMissing, report.StatusObsolete, report.StatusNondeterministic, report.StatusError}
	cases := map[baseline.Key]report.Status{}
	for i := 1; i <= 12; i++ {
		cases[baseline.Key{Env: "crm", Agent: "solver", Task: fmt.Sprintf("TASK-%03d", i)}] = statuses[i%len(statuses)]
	}
	for s := 1; s <= 3; s++ {
		n := 0
		for k := range cases {
			if (Shard{s, 3}).Has(k) {
				n++
			}
		}
		if n == 0 {
			t.Fatalf("no case in shard %d/3", s)
		}
	}
	return cases
}

// TestMergeEachShardMissing: a merge refuses the reports of a split with
// any one shard left out, naming that shard, and merges them all, in any
// order, into the report of the whole selection.
func TestMergeEachShardMissing(t *testing.T) {
	sel := Selection{Envs: []string{"crm"}}
	cases := someCases(t)
	paths := shardFiles(t, sel, 3, cases, nil)
	for skip := range paths {
		var given []string
		for i, p := range paths {
			if i != skip {
				given = append(given, p)
			}
		}
		_, err := MergeReports(given)
		want := fmt.Sprintf("merge: shard %d/3 missing; merge the reports of every shard", skip+1)
		if err == nil || err.Error() != want {
			t.Errorf("without shard %d: %v, want %q", skip+1, err, want)
		}
	}
	whole := shardFiles(t, sel, 1, cases, nil)
	one, err := MergeReports(whole)
	if err != nil {
		t.Fatal(err)
	}
	for _, order := range [][]string{paths, {paths[2], paths[0], paths[1]}, {paths[1], paths[2], paths[0]}} {
		merged, err := MergeReports(order)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(one, merged); diff != "" {
			t.Errorf("merge of %v (-unsharded +merged):\n%s", order, diff)
		}
	}
	if one.Summary.Total != 12 || one.Summary.Obsolete != 2 || one.Shard != "" || one.Oracle != "1.2.3" || one.Selection.Cases != 10 {
		t.Errorf("merged summary %+v shard %q oracle %q selection %+v", one.Summary, one.Shard, one.Oracle, one.Selection)
	}
	if _, err := MergeReports(nil); err == nil || err.Error() != "merge: no report given" {
		t.Errorf("no reports: %v", err)
	}
}

// TestMergeRefusesMore: the refusals TestMergeRefuses does not reach, each
// naming the file.
func TestMergeRefusesMore(t *testing.T) {
	sel := Selection{Envs: []string{"crm"}, Tasks: []string{"TASK-0*"}}
	cases := someCases(t)
	tests := []struct {
		name string
		n    int
		edit func(i int, r *report.Report)
		want string
	}{
		{"every shard", 3, nil, ""},
		{"an obsolete case is not counted as run", 3, func(i int, r *report.Report) {}, ""},
		{"a case twice in one report", 3, func(i int, r *report.Report) {
			if i == 2 {
				r.Cases = append(r.Cases, r.Cases[0])
				r.Finish()
			}
		}, "is in both"},
		{"a selection of obsolete cases only", 2, func(i int, r *report.Report) {
			for _, c := range r.Cases {
				c.Status = report.StatusObsolete
			}
			r.Selection.Cases = 0
			r.Finish()
		}, ""},
		{"negative cases", 1, func(i int, r *report.Report) { r.Selection.Cases = -1 }, "s1.json is not a JSON report of oracle check: selection.cases is -1"},
		{"a selection that is no glob", 1, func(i int, r *report.Report) { r.Selection.Tasks = []string{"["} }, "s1.json is not a JSON report of oracle check: selection: "},
		{"a null case", 1, func(i int, r *report.Report) { r.Cases = append(r.Cases, nil) }, "s1.json is not a JSON report of oracle check: case 13 is null"},
		{"a case name that is not a name", 1, func(i int, r *report.Report) {
			r.Cases[0].Task, r.Cases[0].Case = "../x", "crm/solver/../x"
		}, `s1.json is not a JSON report of oracle check: case "crm/solver/../x" does not match its env, agent and task`},
		{"another agent list", 3, func(i int, r *report.Report) {
			if i == 3 {
				r.Selection.Agents = []string{"solver"}
			}
		}, "s3.json is a report of another selection (--env crm --agent solver --task 'TASK-0*' 10 cases) than "},
		{"another task list", 3, func(i int, r *report.Report) {
			if i == 2 {
				r.Selection.Tasks = []string{"TASK-*"}
			}
		}, "s2.json is a report of another selection"},
		{"another env list", 3, func(i int, r *report.Report) {
			if i == 2 {
				r.Selection.Envs = []string{"crm", "calendar"}
			}
		}, "s2.json is a report of another selection"},
		{"another count of cases", 3, func(i int, r *report.Report) {
			if i == 3 {
				r.Selection.Cases = 11
			}
		}, "s3.json is a report of another selection"},
		{"the first report another count", 3, func(i int, r *report.Report) {
			r.Selection.Cases = 11
		}, "merge: the shards ran 10 cases, but their selection holds 11; merge the reports of one run"},
		{"another oracle", 3, func(i int, r *report.Report) {
			if i == 2 {
				r.Oracle = "9.9.9"
			}
		}, "s2.json is a report of oracle 9.9.9, "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			paths := shardFiles(t, sel, tt.n, cases, tt.edit)
			r, err := MergeReports(paths)
			switch {
			case tt.want == "" && err != nil:
				t.Fatal(err)
			case tt.want == "":
				if r.Summary.Total != 12 {
					t.Errorf("merged %d cases, want 12", r.Summary.Total)
				}
			case err == nil || !strings.Contains(err.Error(), tt.want):
				t.Errorf("error %v, want it to hold %q", err, tt.want)
			}
		})
	}
}

// TestDescribe: a selection is described as the flags that make it, each
// pattern quoted for a shell when it holds more than a name.
func TestDescribe(t *testing.T) {
	for _, tt := range []struct {
		sel  report.Selection
		want string
	}{
		{report.Selection{Cases: 3}, "3 cases"},
		{report.Selection{Envs: []string{"crm", "cal*"}, Agents: []string{"solver"}, Tasks: []string{"TASK-00[12]", "it's"}, Cases: 1},
			`--env crm --env 'cal*' --agent solver --task 'TASK-00[12]' --task 'it'\''s' 1 cases`},
		{report.Selection{Tasks: []string{"a.b_c-d/e:f"}}, "--task a.b_c-d/e:f 0 cases"},
		{report.Selection{Tasks: []string{"a b", "é"}}, "--task 'a b' --task 'é' 0 cases"},
	} {
		if got := describe(&tt.sel); got != tt.want {
			t.Errorf("describe(%+v) = %q, want %q", tt.sel, got, tt.want)
		}
	}
	a := &report.Selection{Envs: []string{"a"}, Agents: []string{"b"}, Tasks: []string{"c"}, Cases: 1}
	for _, b := range []report.Selection{
		{Envs: []string{"x"}, Agents: []string{"b"}, Tasks: []string{"c"}, Cases: 1},
		{Envs: []string{"a"}, Agents: []string{"x"}, Tasks: []string{"c"}, Cases: 1},
		{Envs: []string{"a"}, Agents: []string{"b"}, Tasks: []string{"x"}, Cases: 1},
		{Envs: []string{"a"}, Agents: []string{"b"}, Tasks: []string{"c"}, Cases: 2},
	} {
		if sameSelection(a, &b) {
			t.Errorf("sameSelection(%+v, %+v)", a, b)
		}
	}
	if !sameSelection(a, &report.Selection{Envs: []string{"a"}, Agents: []string{"b"}, Tasks: []string{"c"}, Cases: 1}) {
		t.Error("a selection is not the same as itself")
	}
}

// TestNewReportLists: a report's selection lists are empty lists, never
// null, whatever the selection holds, and are its own copies.
func TestNewReportLists(t *testing.T) {
	tasks := []string{"T-1"}
	r := newReport(Selection{Tasks: tasks}, 4)
	data, err := json.Marshal(r.Selection)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"env":[],"agent":[],"task":["T-1"],"cases":4}`; string(data) != want {
		t.Errorf("selection %s, want %s", data, want)
	}
	tasks[0] = "changed"
	if r.Selection.Tasks[0] != "T-1" || r.Shard != "" || r.FormatVersion != report.Format || r.Cases == nil {
		t.Errorf("report %+v", r)
	}
	if r := newReport(Selection{Shard: Shard{2, 3}}, 0); r.Shard != "2/3" {
		t.Errorf("shard %q", r.Shard)
	}
}
