package mutate

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestClassify: what a mutant's check says becomes its outcome.
func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		name      string
		exit      int
		report    string
		outcome   Outcome
		verifiers bool
		artifacts []string
	}{
		{"unchanged", 0, `{"cases":[{"case":"e/a/T","status":"unchanged","oldVerdict":"pass","newVerdict":"pass"}]}`, Survived, false, nil},
		{"baselines only", 1, `{"cases":[{"case":"e/a/T","status":"changed","oldVerdict":"pass","newVerdict":"pass","files":[{"file":"calls.json"},{"file":"state-diff.json"}]}]}`, Caught, false, []string{"calls", "state-diff"}},
		{"verifiers", 1, `{"cases":[{"case":"e/a/T","status":"unchanged"},{"case":"e/a/U","status":"changed","oldVerdict":"pass","newVerdict":"fail","files":[{"file":"result.json"}]}]}`, Caught, true, []string{"result"}},
		{"a failing baseline that changes", 1, `{"cases":[{"case":"e/a/T","status":"changed","oldVerdict":"fail","newVerdict":"pass","files":[{"file":"result.json"}]}]}`, Caught, false, []string{"result"}},
		{"nondeterministic", 1, `{"cases":[{"case":"e/a/T","status":"nondeterministic"}]}`, Caught, false, []string{"nondeterministic"}},
		{"does not load", 2, `{"cases":[{"case":"e/a/T","status":"error","error":"seed: boom"}]}`, Error, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := &checkRun{exit: tc.exit}
			if err := json.Unmarshal([]byte(tc.report), &res.report); err != nil {
				t.Fatal(err)
			}
			var r Result
			classify(res, &r)
			if r.Outcome != tc.outcome || r.Verifiers != tc.verifiers || cmp.Diff(tc.artifacts, r.Artifacts) != "" {
				t.Errorf("got %s verifiers %v artifacts %v, want %s %v %v", r.Outcome, r.Verifiers, r.Artifacts, tc.outcome, tc.verifiers, tc.artifacts)
			}
		})
	}
}

func TestCleanCheck(t *testing.T) {
	ok := &checkRun{}
	ok.report.Summary.Total, ok.report.Summary.Unchanged = 2, 2
	if err := cleanCheck(ok); err != nil {
		t.Error(err)
	}
	bad := &checkRun{exit: 1}
	bad.report.Summary.Total = 1
	bad.report.Cases = []checkCase{{Case: Case{Key: "e/a/T"}, Status: "changed"}}
	if err := cleanCheck(bad); err == nil || !strings.Contains(err.Error(), "(e/a/T changed)") {
		t.Errorf("a changed case: %v", err)
	}
	if err := cleanCheck(&checkRun{}); err == nil {
		t.Error("a check of no case was clean")
	}
}

func TestScores(t *testing.T) {
	rep := &Report{}
	for _, r := range []Result{{Outcome: Caught, Verifiers: true}, {Outcome: Caught}, {Outcome: Caught}, {Outcome: Survived},
		{Outcome: NoCoverage}, {Outcome: Timeout}, {Outcome: Error}} {
		rep.Counts.add(&r)
	}
	if got, want := rep.Totals(), "baselines caught 3 of 6, verifiers alone 1 of 6, 1 survived, 1 not covered, 1 timed out, 1 did not build or load (not counted)"; got != want {
		t.Errorf("totals %q, want %q", got, want)
	}
	if s, v := rep.Counts.Score(), rep.Counts.VerifierScore(); s != 66.7 || v != 33.3 {
		t.Errorf("scores %v and %v, want 66.7 and 33.3", s, v)
	}
}
