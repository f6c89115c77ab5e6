package render

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agent-oracle/oracle/oracle"
)

// sameChanges groups the changed cases of a report whose change is the
// same (their diffs, story, verdicts, rewards and tool errors are equal,
// whatever the case): a report shows the change once, with the first case
// that has it, and names the others. It keeps a digest of each change and
// the names of the cases that share one, never their diffs.
type sameChanges struct {
	first  map[[sha256.Size]byte]*changeGroup
	groups []*changeGroup // in the order their first case came
}

// changeGroup is the cases of one change, the first one first.
type changeGroup struct {
	cases []string
}

// add takes the next case and returns its group (nil for a case that is
// not changed) and whether an earlier case has the same change (the
// group's first case shows it).
func (s *sameChanges) add(cr *oracle.CaseReport) (*changeGroup, bool) {
	d, ok := changeDigest(cr)
	if !ok {
		return nil, false
	}
	if s.first == nil {
		s.first = map[[sha256.Size]byte]*changeGroup{}
	}
	if g := s.first[d]; g != nil {
		g.cases = append(g.cases, cr.Case)
		return g, true
	}
	g := &changeGroup{cases: []string{cr.Case}}
	s.first[d] = g
	s.groups = append(s.groups, g)
	return g, false
}

// shared returns the groups of more than one case.
func (s *sameChanges) shared() []*changeGroup {
	var out []*changeGroup
	for _, g := range s.groups {
		if len(g.cases) > 1 {
			out = append(out, g)
		}
	}
	return out
}

// changeDigest is the digest of what a changed case shows but its name;
// false for a case that is not changed.
func changeDigest(cr *oracle.CaseReport) ([sha256.Size]byte, bool) {
	if cr.Status != oracle.StatusChanged {
		return [sha256.Size]byte{}, false
	}
	c := *cr
	c.Case, c.Env, c.Agent, c.Task, c.Elapsed = "", "", "", "", 0
	data, err := json.Marshal(&c)
	if err != nil {
		return [sha256.Size]byte{}, false
	}
	return sha256.Sum256(data), true
}

// names lists up to max case names, "and N more" for the rest.
func names(cases []string, max int) string {
	if len(cases) <= max {
		return strings.Join(cases, ", ")
	}
	return strings.Join(cases[:max], ", ") + fmt.Sprintf(" and %d more", len(cases)-max)
}

// unlisted counts the cases needing attention that a report bounded by
// --max-cases (or by its size) did not list, by status.
type unlisted struct {
	n        int
	byStatus map[oracle.Status]int
	order    []oracle.Status
}

func (u *unlisted) add(cr *oracle.CaseReport) {
	if u.byStatus == nil {
		u.byStatus = map[oracle.Status]int{}
	}
	if u.byStatus[cr.Status] == 0 {
		u.order = append(u.order, cr.Status)
	}
	u.byStatus[cr.Status]++
	u.n++
}

// line says what was not listed and where every case is: "2700 more cases
// need attention (2690 changed, 10 missing), not listed here; …".
func (u *unlisted) line(o Options) string {
	if u.n == 0 {
		return ""
	}
	parts := make([]string, 0, len(u.order))
	for _, s := range u.order {
		parts = append(parts, fmt.Sprintf("%d %s", u.byStatus[s], s))
	}
	return fmt.Sprintf("%d more %s attention (%s), not listed here; %s", u.n, plural(u.n, "case needs", "cases need"),
		strings.Join(parts, ", "), o.elsewhere())
}
