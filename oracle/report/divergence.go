package report

import (
	"fmt"

	"github.com/agent-oracle/oracle/oracle/change"
)

// Divergence says where two runs of a case first differ.
type Divergence struct {
	Run  int              `json:"run"` // the run that differed from run 1
	Diff *change.FileDiff `json:"diff"`
}

// String names the first differing path.
func (d *Divergence) String() string {
	if d.Diff == nil {
		return fmt.Sprintf("run %d differs from run 1", d.Run)
	}
	where := d.Diff.File
	switch {
	case len(d.Diff.Changes) > 0:
		c := d.Diff.Changes[0]
		where += " " + c.Location() + ": " + string(c.From) + " → " + string(c.To)
	case len(d.Diff.Members) > 0:
		m := d.Diff.Members[0]
		where += " " + m.Name() + " " + m.What()
		if len(m.Fields) > 0 {
			f := m.Fields[0]
			if f.Path != "" {
				where += " at " + f.Path
			}
			if f.Was != nil && f.Now != nil {
				where += ": " + string(f.Was.To) + " → " + string(f.Now.To)
			}
		}
	case len(d.Diff.Invisible) > 0:
		where += " (" + d.Diff.Invisible[0].String() + ")"
	}
	return fmt.Sprintf("run %d differs from run 1 at %s", d.Run, where)
}
