package change

import (
	"testing"

	"github.com/agent-oracle/oracle/oracle/internal/artifacttest"
	"github.com/google/go-cmp/cmp"
)

func storyPtr[T any](v T) *T { return &v }

// TestStory pins each way a check or a violation moves between the
// baseline's result.json and the fresh one.
func TestStory(t *testing.T) {
	a := artifacttest.Check("A", "required", true, "answered 12, expected 12")
	for _, tt := range []struct {
		name       string
		old, fresh []byte
		want       *Story
	}{
		{"nothing moved", artifacttest.Result(t, nil, a), artifacttest.Result(t, nil, a), nil},
		{"a check flips", artifacttest.Result(t, nil, a), artifacttest.Result(t, nil, artifacttest.Check("A", "required", false, "answered 13, expected 12")),
			&Story{Checks: []CheckChange{{Label: "A", Kind: "required", Was: storyPtr(true), Now: storyPtr(false), NewDetail: "answered 13, expected 12",
				OldDetail: storyPtr("answered 12, expected 12"), Words: WordDiff("answered 12, expected 12", "answered 13, expected 12")}}}},
		{"a check flips back, its detail the same", artifacttest.Result(t, nil, artifacttest.Check("A", "required", false, "d")), artifacttest.Result(t, nil, artifacttest.Check("A", "required", true, "d")),
			&Story{Checks: []CheckChange{{Label: "A", Kind: "required", Was: storyPtr(false), Now: storyPtr(true), NewDetail: "d"}}}},
		{"only the detail moves, no word shared", artifacttest.Result(t, nil, artifacttest.Check("A", "required", true, "x")), artifacttest.Result(t, nil, artifacttest.Check("A", "required", true, "y")),
			&Story{Checks: []CheckChange{{Label: "A", Kind: "required", Was: storyPtr(true), Now: storyPtr(true), NewDetail: "y", OldDetail: storyPtr("x")}}}},
		{"a detail that was empty", artifacttest.Result(t, nil, artifacttest.Check("A", "required", true, "")), artifacttest.Result(t, nil, artifacttest.Check("A", "required", true, "now says")),
			&Story{Checks: []CheckChange{{Label: "A", Kind: "required", Was: storyPtr(true), Now: storyPtr(true), NewDetail: "now says", OldDetail: storyPtr("")}}}},
		{"the kind moves", artifacttest.Result(t, nil, artifacttest.Check("A", "optional", true, "d")), artifacttest.Result(t, nil, artifacttest.Check("A", "required", true, "d")),
			&Story{Checks: []CheckChange{{Label: "A", Kind: "required", OldKind: "optional", Was: storyPtr(true), Now: storyPtr(true), NewDetail: "d"}}}},
		{"a new check and a gone one", artifacttest.Result(t, nil, a, artifacttest.Check("Gone", "optional", true, "was here")), artifacttest.Result(t, nil, artifacttest.Check("New", "required", false, "fails"), a),
			&Story{Checks: []CheckChange{
				{Label: "New", Kind: "required", Now: storyPtr(false), NewDetail: "fails"},
				{Label: "Gone", Kind: "optional", Was: storyPtr(true), OldDetail: storyPtr("was here")},
			}}},
		{"a label twice: the first one counts", artifacttest.Result(t, nil, a, artifacttest.Check("A", "required", false, "second")), artifacttest.Result(t, nil, a, artifacttest.Check("A", "required", true, "other")), nil},
		{"violations new and gone", artifacttest.Result(t, []string{"deleted a deal", "both"}), artifacttest.Result(t, []string{"both", "emailed a customer", "emailed a customer"}),
			&Story{NewViolations: []string{"emailed a customer"}, GoneViolations: []string{"deleted a deal"}}},
		{"not a result", []byte(`[1]`), []byte(`{`), nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, StoryOf(tt.old, tt.fresh)); diff != "" {
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

// TestFoldNeedsTheHeadline: without both verdicts (a result.json the
// headline cannot read) the derived fields are listed; a check's change is
// folded only when the story lists that check.
func TestFoldNeedsTheHeadline(t *testing.T) {
	f := &FileDiff{File: "result.json", Changes: []Change{
		{Op: ChangeReplace, Path: "/verdict"}, {Op: ChangeReplace, Path: "/checks/1/detail", Label: "B"},
		{Op: ChangeReplace, Path: "/checks/0/detail", Label: "A"}, {Op: ChangeReplace, Path: "/checks/0/extra", Label: "A"},
		{Op: ChangeAdd, Path: "/checks/2", Label: "A"}, {Op: ChangeReplace, Path: "/verdictNote"}, {Op: ChangeReplace, Path: "/failedRequiredX"},
	}}
	Fold(f, &Story{Checks: []CheckChange{{Label: "A"}}}, false)
	var folded []string
	for _, c := range f.Folded() {
		folded = append(folded, c.Path)
	}
	if diff := cmp.Diff([]string{"/checks/0/detail", "/checks/2"}, folded); diff != "" {
		t.Errorf("folded (-want +got):\n%s", diff)
	}
}
