package oracle

import (
	"testing"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/oracle/change"
	"github.com/agent-oracle/oracle/oracle/internal/artifacttest"
	"github.com/agent-oracle/oracle/oracle/report"
	"github.com/google/go-cmp/cmp"
)

// TestCompareBranches pins the one classification of a case, as review
// and accept see a pending case: its status, label, verdicts and rewards
// old → new, the files that differ, its checks and its tool errors.
func TestCompareBranches(t *testing.T) {
	k := baseline.Key{Env: "e", Agent: "a", Task: "T"}
	result := func(verdict string, reward string, checks string) []byte {
		return []byte(`{"verdict":"` + verdict + `","reward":` + reward + `,"toolErrors":1,"checks":[` + checks + `]}` + "\n")
	}
	pass := `{"label":"L","kind":"required","passed":true}`
	fail := `{"label":"L","kind":"required","passed":false}`
	frozen := baseline.Entry{Result: result("pass", "1", pass), StateDiff: []byte("{}\n"), Calls: artifacttest.Calls("a {} 1")}
	yes, no := true, false
	one, half := 1.0, 0.5
	type want struct {
		status           report.Status
		label            change.Label
		oldV, newV       env.Verdict
		oldR, newR       *float64
		oldErrors        int
		files            []string
		checks           []change.CheckChange
		newErrs, goneErr int
	}
	tests := []struct {
		name     string
		frozen   *baseline.Entry
		fresh    baseline.Entry
		obsolete bool
		want     want
	}{
		{"obsolete", &frozen, baseline.Entry{}, true, want{status: report.StatusObsolete}},
		{"no baseline", nil, frozen, false, want{status: report.StatusMissing, newV: env.Pass, newR: &one}},
		{"the same", &frozen, frozen, false, want{status: report.StatusUnchanged, oldV: env.Pass, newV: env.Pass, oldR: &one, newR: &one, oldErrors: 1}},
		{"a regression", &frozen, baseline.Entry{Result: result("fail", "0.5", fail), StateDiff: frozen.StateDiff, Calls: frozen.Calls}, false,
			want{status: report.StatusChanged, label: change.LabelRegression, oldV: env.Pass, newV: env.Fail, oldR: &one, newR: &half, oldErrors: 1,
				files: []string{"result.json"}, checks: []change.CheckChange{{Label: "L", Kind: "required", Was: &yes, Now: &no}}}},
		{"an improvement", &baseline.Entry{Result: result("inconclusive", "0.5", fail), StateDiff: frozen.StateDiff, Calls: frozen.Calls}, frozen, false,
			want{status: report.StatusChanged, label: change.LabelImprovement, oldV: env.Inconclusive, newV: env.Pass, oldR: &half, newR: &one, oldErrors: 1,
				files: []string{"result.json"}, checks: []change.CheckChange{{Label: "L", Kind: "required", Was: &no, Now: &yes}}}},
		{"fail to inconclusive is no label", &baseline.Entry{Result: result("fail", "0", fail)}, baseline.Entry{Result: result("inconclusive", "0", fail)}, false,
			want{status: report.StatusChanged, oldV: env.Fail, newV: env.Inconclusive, oldR: new(float64), newR: new(float64), oldErrors: 1,
				files: []string{"result.json"}, checks: []change.CheckChange{{Label: "L", Kind: "required", Was: &no, Now: &no}}}},
		{"only calls.json changed: a new tool error", &frozen, baseline.Entry{Result: frozen.Result, StateDiff: frozen.StateDiff, Calls: artifacttest.Calls("a {} !x")}, false,
			want{status: report.StatusChanged, oldV: env.Pass, newV: env.Pass, oldR: &one, newR: &one, oldErrors: 1,
				files: []string{"calls.json"}, checks: []change.CheckChange{{Label: "L", Kind: "required", Was: &yes, Now: &yes}}, newErrs: 1}},
		{"only calls.json changed: an error gone", &baseline.Entry{Result: frozen.Result, Calls: artifacttest.Calls("a {} !x")}, baseline.Entry{Result: frozen.Result, Calls: artifacttest.Calls("a {} 1")}, false,
			want{status: report.StatusChanged, oldV: env.Pass, newV: env.Pass, oldR: &one, newR: &one, oldErrors: 1,
				files: []string{"calls.json"}, checks: []change.CheckChange{{Label: "L", Kind: "required", Was: &yes, Now: &yes}}, goneErr: 1}},
		{"a file the baseline lacks, and nothing else", &baseline.Entry{Result: frozen.Result, StateDiff: frozen.StateDiff}, frozen, false,
			want{status: report.StatusMissing, oldV: env.Pass, newV: env.Pass, oldR: &one, newR: &one, oldErrors: 1, files: []string{"calls.json"}}},
		{"a file the baseline lacks, and a change", &baseline.Entry{Result: frozen.Result, StateDiff: []byte("{\"x\":1}\n")}, frozen, false,
			want{status: report.StatusChanged, oldV: env.Pass, newV: env.Pass, oldR: &one, newR: &one, oldErrors: 1, files: []string{"state-diff.json", "calls.json"},
				checks: []change.CheckChange{{Label: "L", Kind: "required", Was: &yes, Now: &yes}}}},
		{"only result.json pending, the same", &frozen, baseline.Entry{Result: frozen.Result}, false,
			want{status: report.StatusUnchanged, oldV: env.Pass, newV: env.Pass, oldR: &one, newR: &one, oldErrors: 1}},
		{"nothing pending but calls.json", &frozen, baseline.Entry{Calls: artifacttest.Calls("a {} 2")}, false,
			want{status: report.StatusChanged, oldV: env.Pass, oldR: &one, oldErrors: 1, files: []string{"calls.json"},
				checks: []change.CheckChange{{Label: "L", Kind: "required", Was: &yes}}}},
		{"a result without a verdict reads the baseline's", &frozen, baseline.Entry{Result: []byte("{}\n"), StateDiff: frozen.StateDiff, Calls: frozen.Calls}, false,
			want{status: report.StatusChanged, oldV: env.Pass, oldR: &one, oldErrors: 1, files: []string{"result.json"},
				checks: []change.CheckChange{{Label: "L", Kind: "required", Was: &yes}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cr := Compare(k, tt.frozen, tt.fresh, tt.obsolete)
			var files []string
			for _, f := range cr.Files {
				files = append(files, f.File)
			}
			got := want{status: cr.Status, label: cr.Label, oldV: cr.OldVerdict, newV: cr.NewVerdict, oldR: cr.OldReward, newR: cr.NewReward,
				oldErrors: cr.OldToolErrors, files: files, checks: cr.Checks, newErrs: len(cr.NewToolErrors), goneErr: len(cr.GoneToolErrors)}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if cr.Case != "e/a/T" || cr.Key() != k {
				t.Errorf("case %q key %v", cr.Case, cr.Key())
			}
		})
	}
}

// TestVerdictChange: what accepting does to a verdict, read from the two
// result.json files alone.
func TestVerdictChange(t *testing.T) {
	res := func(v string) []byte { return []byte(`{"verdict":"` + v + `"}`) }
	for _, tt := range []struct {
		name          string
		frozen, fresh []byte
		old, now      env.Verdict
		label         change.Label
	}{
		{"pass to fail", res("pass"), res("fail"), env.Pass, env.Fail, change.LabelRegression},
		{"pass to inconclusive", res("pass"), res("inconclusive"), env.Pass, env.Inconclusive, change.LabelRegression},
		{"fail to pass", res("fail"), res("pass"), env.Fail, env.Pass, change.LabelImprovement},
		{"fail to inconclusive", res("fail"), res("inconclusive"), env.Fail, env.Inconclusive, ""},
		{"as before", res("pass"), res("pass"), env.Pass, env.Pass, ""},
		{"no baseline", nil, res("fail"), "", env.Fail, ""},
		{"result.json not pending", res("pass"), nil, "", "", ""},
		{"the original runner's passed", []byte(`{"passed":true}`), []byte(`{"passed":false}`), env.Pass, env.Fail, change.LabelRegression},
		{"a pending result that is not JSON no longer passes", res("pass"), []byte(`{`), env.Pass, "", change.LabelRegression},
		{"nor one without a verdict", res("pass"), []byte(`{"reward":1}`), env.Pass, "", change.LabelRegression},
		{"a baseline without a verdict", []byte(`{}`), res("fail"), "", env.Fail, ""},
		{"neither has one", []byte(`{}`), []byte(`{}`), "", "", ""},
	} {
		old, now, label := VerdictChange(tt.frozen, tt.fresh)
		if old != tt.old || now != tt.now || label != tt.label {
			t.Errorf("%s: %q → %q (%q), want %q → %q (%q)", tt.name, old, now, label, tt.old, tt.now, tt.label)
		}
	}
}

// TestJudgeOldFacts: the baseline's verdict and reward are its
// result.json's, also for a case that compares only other artifacts (check
// --artifacts state-diff), whose results may differ unseen.
func TestJudgeOldFacts(t *testing.T) {
	k := baseline.Key{Env: "e", Agent: "a", Task: "T"}
	frozen := baseline.Entry{Result: []byte(`{"verdict":"fail","reward":0}`), StateDiff: []byte("{}\n")}
	fresh := baseline.Entry{Result: []byte(`{"verdict":"pass","reward":1}`), StateDiff: []byte("{}\n")}
	for _, tt := range []struct {
		files []string
		old   env.Verdict
	}{
		{[]string{"state-diff.json"}, env.Fail},
		{[]string{"result.json", "state-diff.json"}, env.Fail},
	} {
		cr := newCaseReport(k)
		judge(cr, &frozen, fresh, tt.files, factsOf(fresh.Result), nil)
		if cr.OldVerdict != tt.old || cr.NewVerdict != "" && cr.NewVerdict != env.Pass {
			t.Errorf("files %v: old verdict %q, want %q", tt.files, cr.OldVerdict, tt.old)
		}
	}
	// result.json compared and the same: the fresh facts are the baseline's
	cr := newCaseReport(k)
	judge(cr, &fresh, fresh, []string{"result.json", "state-diff.json"}, factsOf(fresh.Result), nil)
	if cr.Status != report.StatusUnchanged || cr.OldVerdict != env.Pass || cr.OldReward == nil || *cr.OldReward != 1 {
		t.Errorf("unchanged: %+v", cr)
	}
}
