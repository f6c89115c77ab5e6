package oracle

import (
	"fmt"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/internal/artifact"
	"github.com/agent-oracle/oracle/internal/redact"
	"github.com/agent-oracle/oracle/oracle/change"
	"github.com/agent-oracle/oracle/oracle/report"
)

// A case's rules (Case.Redact) are applied to each run's artifacts as soon
// as the run ends, before anything compares them: the runs of a case agree
// when their redacted artifacts do, record freezes the redacted bytes,
// check compares them with the baseline, and the fresh artifacts a check
// keeps (--report-dir, --pending, accept) are redacted too, so that no raw
// volatile value is ever frozen. The raw artifacts of the first run are
// kept beside them for what a report says of the redaction (how many values
// it hid, and which for check --show-redacted) and for the rules record
// proposes when the runs still differ.

// artifactOf is the artifact a baseline file holds, as a rule names it
// ("calls.json" → "calls").
func artifactOf(file string) string {
	a, _ := artifact.Of(file)
	return a.Name
}

// redacts reports whether rules redact any of files.
func redacts(rules redact.Rules, files []string) bool {
	for _, name := range files {
		if rules.Has(artifactOf(name)) {
			return true
		}
	}
	return false
}

// redactEntry applies rules to the files of raw, one run's artifacts, and
// returns the entry redacted and the values redacted in each file.
func redactEntry(rules redact.Rules, raw baseline.Entry, files []string) (baseline.Entry, map[string][]redact.Place, error) {
	out := raw
	places := map[string][]redact.Place{}
	for _, name := range files {
		art := artifactOf(name)
		if !rules.Has(art) {
			continue
		}
		res, err := rules.Apply(art, raw.File(name))
		if err != nil {
			return baseline.Entry{}, nil, fmt.Errorf("%w; fix the rule in the environment's redact list", err)
		}
		out.Set(name, res.Data)
		places[name] = res.Places
	}
	return out, places, nil
}

// runRedaction is what a case's rules did to its runs.
type runRedaction struct {
	rules redact.Rules
	// places are the values redacted in the first run, by file.
	places map[string][]redact.Place
	// hidden are the values that differ between the first run and a
	// later one only where the rules redact them alike, by file, each
	// place once (as the first later run to differ there has it), in the
	// order they were found; hiddenAt indexes them by file and pointer.
	hidden   map[string][]redact.Hidden
	hiddenAt map[string]map[string]int
	// runs is how many runs were compared.
	runs int
}

// compare adds what the runs first and later (raw, their redacted files
// equal) hold differently in redacted places.
func (r *runRedaction) compare(first, later baseline.Entry, files []string) error {
	r.runs++
	for _, name := range files {
		art := artifactOf(name)
		if !r.rules.Has(art) {
			continue
		}
		cmp, err := r.rules.Compare(art, first.File(name), later.File(name))
		if err != nil {
			return err
		}
		if len(cmp.Hidden) == 0 {
			continue
		}
		if r.hidden == nil {
			r.hidden, r.hiddenAt = map[string][]redact.Hidden{}, map[string]map[string]int{}
		}
		at := r.hiddenAt[name]
		if at == nil {
			at = map[string]int{}
			r.hiddenAt[name] = at
		}
		for _, h := range cmp.Hidden {
			if _, seen := at[h.Pointer]; !seen {
				at[h.Pointer] = len(r.hidden[name])
				r.hidden[name] = append(r.hidden[name], h)
			}
		}
	}
	return nil
}

// explain lists how the rules take part in the differences between a
// baseline file (frozen, as the store holds it) and the fresh one (raw, as
// the run wrote it): a redacted value that changed type, a rule added,
// removed or edited since the baseline was recorded. The plain
// differences are the diff's to show.
func (r *runRedaction) explain(name string, frozen, raw []byte) ([]change.RedactionNote, error) {
	art := artifactOf(name)
	if r == nil || frozen == nil || raw == nil {
		return nil, nil
	}
	cmp, err := r.rules.CompareBaseline(art, frozen, raw)
	if err != nil {
		return nil, err
	}
	var notes []change.RedactionNote
	at := map[string]int{}
	for _, d := range cmp.Differences {
		if d.Cause == redact.CauseNone {
			continue
		}
		text := r.rules.Explain(d)
		i, ok := at[text]
		if !ok {
			i, at[text] = len(notes), len(notes)
			notes = append(notes, change.RedactionNote{Cause: string(d.Cause), Rules: d.Rules, Note: text})
		}
		n := &notes[i]
		n.Count++
		if len(n.Pointers) < maxNotePointers {
			n.Pointers = append(n.Pointers, d.Pointer)
		}
	}
	return notes, nil
}

// Diverges says where the artifacts of run (later) first differ from those
// of run 1 (first), both as the runner wrote them (runner.Artifacts.Files),
// once redacted by f's rules: diverges for the files f freezes, as record
// and check compare the runs of a case. A run the rules cannot redact is an
// error.
func (f Frozen) Diverges(run int, first, later map[string][]byte) (*report.Divergence, error) {
	a, b := baseline.Pick(first, f.Files), baseline.Pick(later, f.Files)
	if redacts(f.Redact, f.Files) {
		var err error
		if a, _, err = redactEntry(f.Redact, a, f.Files); err != nil {
			return nil, err
		}
		if b, _, err = redactEntry(f.Redact, b, f.Files); err != nil {
			return nil, err
		}
	}
	return diverges(run, a, b, f.Files), nil
}
