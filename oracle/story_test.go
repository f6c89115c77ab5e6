package oracle

import (
	"encoding/json"
	"testing"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/google/go-cmp/cmp"
)

// storyResult is a result.json with the given checks and violations, graded
// as env.Grade grades them (the derived fields follow the checks).
func storyResult(t *testing.T, violations []string, checks ...map[string]any) []byte {
	t.Helper()
	passed, failed, reqPassed, reqTotal := 0, 0, 0, 0
	failedRequired := []string{}
	for _, c := range checks {
		ok := c["passed"] == true
		if ok {
			passed++
		} else {
			failed++
		}
		if c["kind"] == "required" {
			reqTotal++
			if ok {
				reqPassed++
			} else {
				failedRequired = append(failedRequired, c["label"].(string))
			}
		}
	}
	verdict := "pass"
	if len(failedRequired) > 0 || len(violations) > 0 {
		verdict = "fail"
	}
	if violations == nil {
		violations = []string{}
	}
	data, err := json.Marshal(map[string]any{"passed": verdict == "pass", "verdict": verdict, "reward": float64(passed) / float64(max(1, passed+failed)),
		"requiredPassed": reqPassed, "requiredTotal": reqTotal, "failedRequired": failedRequired, "violations": violations,
		"checksPassed": passed, "checksFailed": failed, "agentOutput": "answer", "checks": checks})
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func storyCheck(label, kind string, passed bool, detail string) map[string]any {
	return map[string]any{"label": label, "kind": kind, "passed": passed, "detail": detail, "required": kind == "required"}
}

func storyPtr[T any](v T) *T { return &v }

// TestStory pins each way a check or a violation moves between the
// baseline's result.json and the fresh one.
func TestStory(t *testing.T) {
	a := storyCheck("A", "required", true, "answered 12, expected 12")
	for _, tt := range []struct {
		name       string
		old, fresh []byte
		want       *Story
	}{
		{"nothing moved", storyResult(t, nil, a), storyResult(t, nil, a), nil},
		{"a check flips", storyResult(t, nil, a), storyResult(t, nil, storyCheck("A", "required", false, "answered 13, expected 12")),
			&Story{Checks: []CheckChange{{Label: "A", Kind: "required", Was: storyPtr(true), Now: storyPtr(false), NewDetail: "answered 13, expected 12",
				OldDetail: storyPtr("answered 12, expected 12"), Words: WordDiff("answered 12, expected 12", "answered 13, expected 12")}}}},
		{"a check flips back, its detail the same", storyResult(t, nil, storyCheck("A", "required", false, "d")), storyResult(t, nil, storyCheck("A", "required", true, "d")),
			&Story{Checks: []CheckChange{{Label: "A", Kind: "required", Was: storyPtr(false), Now: storyPtr(true), NewDetail: "d"}}}},
		{"only the detail moves, no word shared", storyResult(t, nil, storyCheck("A", "required", true, "x")), storyResult(t, nil, storyCheck("A", "required", true, "y")),
			&Story{Checks: []CheckChange{{Label: "A", Kind: "required", Was: storyPtr(true), Now: storyPtr(true), NewDetail: "y", OldDetail: storyPtr("x")}}}},
		{"a detail that was empty", storyResult(t, nil, storyCheck("A", "required", true, "")), storyResult(t, nil, storyCheck("A", "required", true, "now says")),
			&Story{Checks: []CheckChange{{Label: "A", Kind: "required", Was: storyPtr(true), Now: storyPtr(true), NewDetail: "now says", OldDetail: storyPtr("")}}}},
		{"the kind moves", storyResult(t, nil, storyCheck("A", "optional", true, "d")), storyResult(t, nil, storyCheck("A", "required", true, "d")),
			&Story{Checks: []CheckChange{{Label: "A", Kind: "required", OldKind: "optional", Was: storyPtr(true), Now: storyPtr(true), NewDetail: "d"}}}},
		{"a new check and a gone one", storyResult(t, nil, a, storyCheck("Gone", "optional", true, "was here")), storyResult(t, nil, storyCheck("New", "required", false, "fails"), a),
			&Story{Checks: []CheckChange{
				{Label: "New", Kind: "required", Now: storyPtr(false), NewDetail: "fails"},
				{Label: "Gone", Kind: "optional", Was: storyPtr(true), OldDetail: storyPtr("was here")},
			}}},
		{"a label twice: the first one counts", storyResult(t, nil, a, storyCheck("A", "required", false, "second")), storyResult(t, nil, a, storyCheck("A", "required", true, "other")), nil},
		{"violations new and gone", storyResult(t, []string{"deleted a deal", "both"}), storyResult(t, []string{"both", "emailed a customer", "emailed a customer"}),
			&Story{NewViolations: []string{"emailed a customer"}, GoneViolations: []string{"deleted a deal"}}},
		{"not a result", []byte(`[1]`), []byte(`{`), nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, storyOf(tt.old, tt.fresh)); diff != "" {
				t.Errorf("story (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheckChangeWhat(t *testing.T) {
	for _, tt := range []struct {
		c       CheckChange
		what    string
		flipped bool
	}{
		{CheckChange{Was: storyPtr(true), Now: storyPtr(false)}, "passed → failed", true},
		{CheckChange{Was: storyPtr(false), Now: storyPtr(true)}, "failed → passed", true},
		{CheckChange{Was: storyPtr(true), Now: storyPtr(true)}, "passed, as before", false},
		{CheckChange{Was: storyPtr(false), Now: storyPtr(false)}, "failed, as before", false},
		{CheckChange{Now: storyPtr(false)}, "new, failed", false},
		{CheckChange{Was: storyPtr(true)}, "gone (it passed)", false},
		{CheckChange{}, "not graded", false},
	} {
		if got := tt.c.What(); got != tt.what || tt.c.Flipped() != tt.flipped {
			t.Errorf("%+v: %q, flipped %v; want %q, %v", tt.c, got, tt.c.Flipped(), tt.what, tt.flipped)
		}
	}
}

// TestJudgeFoldsWhatTheHeadlineSays: the classification of a changed case
// marks the result.json changes its headline says (the fields derived from
// the checks, the outcome and detail of the checks its story lists) and
// leaves the others (the answer, the tool counts) to be listed.
func TestJudgeFoldsWhatTheHeadlineSays(t *testing.T) {
	old := storyResult(t, nil, storyCheck("A", "required", true, "answered 12"), storyCheck("B", "optional", true, "fine"))
	freshResult := storyResult(t, []string{"v"}, storyCheck("A", "required", false, "answered 13"), storyCheck("B", "optional", true, "fine"))
	var r map[string]any
	json.Unmarshal(freshResult, &r)
	r["agentOutput"], r["toolCalls"] = "another answer", 3
	freshResult, _ = json.Marshal(r)
	k := baseline.Key{Env: "e", Agent: "a", Task: "T-1"}
	cr := Compare(k, &baseline.Entry{Result: old}, baseline.Entry{Result: freshResult}, false)
	if cr.Status != StatusChanged || cr.Label != LabelRegression || cr.Story == nil || len(cr.Story.Checks) != 1 {
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

// TestFoldNeedsTheHeadline: without both verdicts (a result.json the
// headline cannot read) the derived fields are listed; a check's change is
// folded only when the story lists that check.
func TestFoldNeedsTheHeadline(t *testing.T) {
	f := &FileDiff{File: "result.json", Changes: []Change{
		{Op: ChangeReplace, Path: "/verdict"}, {Op: ChangeReplace, Path: "/checks/1/detail", Label: "B"},
		{Op: ChangeReplace, Path: "/checks/0/detail", Label: "A"}, {Op: ChangeReplace, Path: "/checks/0/extra", Label: "A"},
		{Op: ChangeAdd, Path: "/checks/2", Label: "A"}, {Op: ChangeReplace, Path: "/verdictNote"}, {Op: ChangeReplace, Path: "/failedRequiredX"},
	}}
	fold(f, &Story{Checks: []CheckChange{{Label: "A"}}}, false)
	var folded []string
	for _, c := range f.Folded() {
		folded = append(folded, c.Path)
	}
	if diff := cmp.Diff([]string{"/checks/0/detail", "/checks/2"}, folded); diff != "" {
		t.Errorf("folded (-want +got):\n%s", diff)
	}
}
