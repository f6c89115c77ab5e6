package render

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"strconv"
	"strings"

	"github.com/agent-oracle/oracle/oracle/change"
	"github.com/agent-oracle/oracle/oracle/report"
	"github.com/agent-oracle/oracle/runner/statediff"
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

// changeGroup is the cases of one change, the first one first; shown says
// that the report listed the first, which shows the change.
type changeGroup struct {
	cases []string
	shown bool
}

// add takes the next case and returns its group (nil for a case that is
// not changed) and whether an earlier case has the same change (the
// group's first case shows it).
func (s *sameChanges) add(cr *report.Case) (*changeGroup, bool) {
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

// shared returns the groups of more than one case whose change the report
// showed.
func (s *sameChanges) shared() []*changeGroup {
	var out []*changeGroup
	for _, g := range s.groups {
		if len(g.cases) > 1 && g.shown {
			out = append(out, g)
		}
	}
	return out
}

// changeDigest is the digest of what a changed case shows but its name;
// false for a case that is not changed. Each field goes to the hash with
// its length, so that no two changes give the same bytes.
func changeDigest(cr *report.Case) ([sha256.Size]byte, bool) {
	if cr.Status != report.StatusChanged {
		return [sha256.Size]byte{}, false
	}
	d := digester{h: sha256.New()}
	d.str(string(cr.Label), string(cr.OldVerdict), string(cr.NewVerdict), cr.ToolErrorsFrom, cr.Error, cr.Kind)
	// the rare parts, whole: a distribution case's counts, what redaction did
	for _, part := range []any{cr.Distribution, cr.Redacted} {
		b, err := json.Marshal(part)
		if err != nil {
			return [sha256.Size]byte{}, false // never grouped
		}
		d.str(string(b))
	}
	d.reward(cr.OldReward)
	d.reward(cr.NewReward)
	d.str(cr.Violations...)
	for _, tes := range [][]change.FailedCall{cr.NewToolErrors, cr.GoneToolErrors, cr.ToolErrors} {
		d.n(len(tes))
		for _, te := range tes {
			d.n(te.Call)
			d.str(te.Tool, te.Code, te.Message)
		}
	}
	d.n(cr.OldToolErrors)
	d.n(len(cr.Checks))
	for _, c := range cr.Checks {
		d.str(c.Label, c.Kind)
		d.flag(c.Was)
		d.flag(c.Now)
	}
	if st := cr.Story; st != nil {
		d.n(len(st.Checks))
		for _, c := range st.Checks {
			d.str(c.Label, c.Kind, c.OldKind, c.NewDetail)
			d.flag(c.Was)
			d.flag(c.Now)
			d.opt(c.OldDetail)
			d.spans(c.Words)
		}
		d.str(st.NewViolations...)
		d.str(st.GoneViolations...)
	}
	d.n(len(cr.Files))
	for _, f := range cr.Files {
		d.file(f)
	}
	if cr.Divergence != nil {
		d.n(cr.Divergence.Run)
		if cr.Divergence.Diff != nil {
			d.file(cr.Divergence.Diff)
		}
	}
	var sum [sha256.Size]byte
	d.h.Sum(sum[:0])
	return sum, true
}

// digester writes the fields of a change to a hash.
type digester struct {
	h   hash.Hash
	buf [binary.MaxVarintLen64]byte
}

func (d *digester) n(v int) { d.h.Write(d.buf[:binary.PutVarint(d.buf[:], int64(v))]) }

func (d *digester) str(ss ...string) {
	d.n(len(ss))
	for _, s := range ss {
		d.n(len(s))
		io.WriteString(d.h, s)
	}
}

func (d *digester) raw(b []byte) {
	d.n(len(b))
	d.h.Write(b)
}

func (d *digester) flag(b *bool) {
	switch {
	case b == nil:
		d.n(0)
	case *b:
		d.n(1)
	default:
		d.n(2)
	}
}

func (d *digester) opt(s *string) {
	if s == nil {
		d.n(-1)
		return
	}
	d.str(*s)
}

func (d *digester) reward(r *float64) {
	if r == nil {
		d.n(-1)
		return
	}
	d.str(strconv.FormatFloat(*r, 'g', -1, 64))
}

func (d *digester) spans(spans []change.Span) {
	d.n(len(spans))
	for _, s := range spans {
		d.str(string(s.Op), s.Text)
		d.n(s.Skipped)
	}
}

func (d *digester) changes(cs []change.Change) {
	d.n(len(cs))
	for _, c := range cs {
		d.str(string(c.Op), c.Path, c.Label, c.Call)
		d.raw(c.From)
		d.raw(c.To)
		if c.Folded {
			d.n(1)
		} else {
			d.n(0)
		}
		d.spans(c.Words)
	}
}

func (d *digester) field(f *statediff.Change) {
	if f == nil {
		d.n(-1)
		return
	}
	d.str(string(f.Op))
	d.raw(f.From)
	d.raw(f.To)
}

func (d *digester) file(f *change.FileDiff) {
	if f == nil {
		d.n(-1)
		return
	}
	d.str(f.File, string(f.State), f.Error)
	d.changes(f.Changes)
	d.n(len(f.Members))
	for _, m := range f.Members {
		d.str(m.Collection, m.ID, m.Was, m.Now)
		d.n(len(m.Fields))
		for _, fd := range m.Fields {
			d.str(fd.Path)
			d.field(fd.Was)
			d.field(fd.Now)
			d.spans(fd.FromWords)
			d.spans(fd.ToWords)
		}
		d.raw(m.OldValue)
		d.raw(m.NewValue)
		d.changes(m.Value)
	}
	d.n(len(f.Invisible))
	for _, inv := range f.Invisible {
		d.str(inv.Path, inv.Kind, inv.Detail)
	}
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
	byStatus map[report.Status]int
	order    []report.Status
}

func (u *unlisted) add(cr *report.Case) {
	if u.byStatus == nil {
		u.byStatus = map[report.Status]int{}
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
