package change

import (
	"encoding/json"
	"slices"
	"strings"
)

// Story is what a changed case says first, before its artifact diffs: the
// checks whose outcome or detail changed, and the violations the fresh run
// confirms that the baseline's did not. With the verdicts and rewards old
// → new and the new tool errors of the case report, it is the headline of
// the change, the same on every surface. The result.json changes it and
// the headline already say (the fields derived from the checks, and the
// outcome and detail of each check listed here) are marked Folded in the
// case's diff, so that reports list them only on request.
type Story struct {
	// Checks are the checks that flipped, appeared, disappeared, or kept
	// their outcome with another detail or kind: the fresh run's in order,
	// then those only the baseline has.
	Checks []CheckChange `json:"checks,omitempty"`
	// NewViolations are the confirmed forbidden effects (the labels of
	// the failed forbidden checks) of the fresh run that the baseline's
	// run did not have; GoneViolations those it no longer has.
	NewViolations  []string `json:"newViolations,omitempty"`
	GoneViolations []string `json:"goneViolations,omitempty"`
}

// CheckChange is one check of a story, as the baseline (Was, OldDetail)
// and the fresh run (Now, NewDetail) grade it, matched by label.
type CheckChange struct {
	Label string `json:"label"`
	Kind  string `json:"kind,omitempty"`
	// OldKind is the baseline's kind when it differs.
	OldKind string `json:"oldKind,omitempty"`
	// Was and Now say whether the check passed; nil on the side that has
	// no check of this label.
	Was *bool `json:"was,omitempty"`
	Now *bool `json:"now,omitempty"`
	// NewDetail is the fresh run's detail (why it passed or failed), and
	// OldDetail the baseline's when it differs (nil when it is the same);
	// a check only the baseline has keeps its detail in OldDetail.
	NewDetail string  `json:"newDetail,omitempty"`
	OldDetail *string `json:"oldDetail,omitempty"`
	// Words is the word diff of the details, when both sides have one,
	// they differ and they share a word.
	Words []Span `json:"words,omitempty"`
}

// Flipped reports whether the check passes on one side and not the other
// (a check on one side only has not flipped).
func (c CheckChange) Flipped() bool { return c.Was != nil && c.Now != nil && *c.Was != *c.Now }

// What says in words how the check moved: "passed → failed", "failed →
// passed", "passed, as before", "new, failed", "gone (it passed)".
func (c CheckChange) What() string {
	word := func(b bool) string {
		if b {
			return "passed"
		}
		return "failed"
	}
	switch {
	case c.Was == nil && c.Now == nil:
		return "not graded"
	case c.Was == nil:
		return "new, " + word(*c.Now)
	case c.Now == nil:
		return "gone (it " + word(*c.Was) + ")"
	case *c.Was == *c.Now:
		return word(*c.Now) + ", as before"
	}
	return word(*c.Was) + " → " + word(*c.Now)
}

// DetailChanged reports whether both sides have the check and its detail
// differs.
func (c CheckChange) DetailChanged() bool { return c.Was != nil && c.Now != nil && c.OldDetail != nil }

// Empty reports whether the story says nothing.
func (s *Story) Empty() bool {
	return s == nil || len(s.Checks) == 0 && len(s.NewViolations) == 0 && len(s.GoneViolations) == 0
}

// resultCheck is a check as result.json records it.
type resultCheck struct {
	Label  string `json:"label"`
	Kind   string `json:"kind"`
	Passed *bool  `json:"passed"`
	Detail string `json:"detail"`
}

// resultChecks reads the checks and violations of result.json bytes; none
// when they are not a result.
func resultChecks(data []byte) ([]resultCheck, []string) {
	var r struct {
		Checks     []resultCheck `json:"checks"`
		Violations []string      `json:"violations"`
	}
	if json.Unmarshal(data, &r) != nil {
		return nil, nil
	}
	return r.Checks, r.Violations
}

// StoryOf is the story of a change from the baseline's result.json (old)
// to the fresh one; nil when it says nothing.
func StoryOf(old, fresh []byte) *Story {
	before, oldViolations := resultChecks(old)
	after, newViolations := resultChecks(fresh)
	st := &Story{}
	firstOld := func(label string) *resultCheck {
		for i := range before {
			if before[i].Label == label {
				return &before[i]
			}
		}
		return nil
	}
	seen := map[string]bool{}
	for _, c := range after {
		if seen[c.Label] {
			continue
		}
		seen[c.Label] = true
		if ch, changed := checkChange(firstOld(c.Label), &c); changed {
			st.Checks = append(st.Checks, ch)
		}
	}
	for _, c := range before {
		if seen[c.Label] {
			continue
		}
		seen[c.Label] = true
		ch, _ := checkChange(&c, nil)
		st.Checks = append(st.Checks, ch)
	}
	st.NewViolations = missingFrom(newViolations, oldViolations)
	st.GoneViolations = missingFrom(oldViolations, newViolations)
	if st.Empty() {
		return nil
	}
	return st
}

// checkChange compares one check on both sides (nil where a side lacks
// it) and reports whether it changed.
func checkChange(old, fresh *resultCheck) (CheckChange, bool) {
	var ch CheckChange
	switch {
	case fresh == nil:
		ch = CheckChange{Label: old.Label, Kind: old.Kind, Was: old.Passed, OldDetail: &old.Detail}
		return ch, true
	case old == nil:
		ch = CheckChange{Label: fresh.Label, Kind: fresh.Kind, Now: fresh.Passed, NewDetail: fresh.Detail}
		return ch, true
	}
	ch = CheckChange{Label: fresh.Label, Kind: fresh.Kind, Was: old.Passed, Now: fresh.Passed, NewDetail: fresh.Detail}
	changed := !sameBool(old.Passed, fresh.Passed)
	if old.Kind != fresh.Kind {
		ch.OldKind, changed = old.Kind, true
	}
	if old.Detail != fresh.Detail {
		ch.OldDetail, changed = &old.Detail, true
		ch.Words = detailWords(old.Detail, fresh.Detail)
	}
	return ch, changed
}

// detailWords is the word diff of two details, nil when they share no
// word.
func detailWords(a, b string) []Span {
	if a == "" || b == "" {
		return nil
	}
	return sharedWords(a, b)
}

func sameBool(a, b *bool) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

// missingFrom lists the strings of a that b does not hold, in a's order.
func missingFrom(a, b []string) []string {
	var out []string
	for _, s := range a {
		if !slices.Contains(b, s) && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// derivedFields are the fields of result.json derived from its checks: the
// headline says them (the verdict and the reward old → new, the story's
// checks and violations).
var derivedFields = []string{"passed", "verdict", "reward", "checksPassed", "checksFailed", "requiredPassed", "requiredTotal", "failedRequired", "violations"}

// checkFields are the fields of a check that a story's entry says.
var checkFields = []string{"passed", "detail", "kind", "required", "label"}

// Fold marks the changes of the result.json diff f that the headline and
// the story st say: the fields derived from the checks, and the changes of
// each check the story lists (by the check label the change carries).
// The derived fields are folded only when the headline has both verdicts
// (headline).
func Fold(f *FileDiff, st *Story, headline bool) {
	inStory := map[string]bool{}
	if st != nil {
		for _, c := range st.Checks {
			inStory[c.Label] = true
		}
	}
	for i, c := range f.Changes {
		f.Changes[i].Folded = headline && isDerived(c.Path) || c.Label != "" && inStory[c.Label] && isCheckField(c.Path)
	}
}

// isDerived reports whether path is a field derived from the checks or
// lies inside one (/failedRequired/0).
func isDerived(path string) bool {
	field, _, _ := strings.Cut(strings.TrimPrefix(path, "/"), "/")
	return strings.HasPrefix(path, "/") && slices.Contains(derivedFields, field)
}

// isCheckField reports whether path is a check (/checks/N) or one of the
// fields of it a story says (/checks/N/detail).
func isCheckField(path string) bool {
	if _, ok := checkIndex(path); !ok {
		return false
	}
	parts := strings.Split(path, "/") // "", "checks", N, field…
	return len(parts) == 3 || len(parts) == 4 && slices.Contains(checkFields, parts[3])
}

// Unfolded returns the changes of f that are not folded.
func (f *FileDiff) Unfolded() []Change {
	out := make([]Change, 0, len(f.Changes))
	for _, c := range f.Changes {
		if !c.Folded {
			out = append(out, c)
		}
	}
	return out
}

// Folded returns the changes of f that are folded into the headline.
func (f *FileDiff) Folded() []Change {
	var out []Change
	for _, c := range f.Changes {
		if c.Folded {
			out = append(out, c)
		}
	}
	return out
}
