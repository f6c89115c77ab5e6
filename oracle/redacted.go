package oracle

import (
	"unicode/utf8"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/oracle/report"
)

// Limits of what a report holds of the redactions.
const (
	maxShownValues  = 100 // values shown for one case
	maxShownText    = 200 // characters of one value shown
	maxNotePointers = 5   // places a note lists
)

// report says in a case's report what r did; show keeps the values for
// check --show-redacted.
func (r *runRedaction) report(show bool) *report.Redacted {
	if r == nil {
		return nil
	}
	out := &report.Redacted{}
	for _, places := range r.places {
		out.Values += len(places)
	}
	differ := 0
	for _, hidden := range r.hidden {
		differ += len(hidden)
	}
	if r.runs > 0 {
		out.Differ = &differ
	}
	if !show {
		return out
	}
	// room reports whether another value is shown, and counts it in More
	// when it is not
	room := func() bool {
		if len(out.Shown) < maxShownValues {
			return true
		}
		out.More++
		return false
	}
	for _, name := range fileOrder(r.places, r.hidden) {
		// the values the first run redacted, each with what a later run
		// held there when it differed, then those only a later run's
		// rules redacted
		at, shown := r.hiddenAt[name], map[string]bool{}
		for _, p := range r.places[name] {
			i, differs := at[p.Pointer]
			shown[p.Pointer] = differs
			if !room() {
				continue
			}
			v := report.RedactedValue{File: name, Pointer: p.Pointer, Rules: p.Rules, First: cut(p.Raw), Value: cut(p.Value)}
			if differs {
				v.Later = cut(r.hidden[name][i].New)
			}
			out.Shown = append(out.Shown, v)
		}
		for _, h := range r.hidden[name] {
			if _, done := shown[h.Pointer]; !done && room() {
				out.Shown = append(out.Shown, report.RedactedValue{File: name, Pointer: h.Pointer, Rules: h.Rules, First: cut(h.Old), Later: cut(h.New), Value: cut(h.Value)})
			}
		}
	}
	return out
}

// fileOrder lists the files of the maps in the order of baseline.Files.
func fileOrder[A, B any](a map[string]A, b map[string]B) []string {
	var out []string
	for _, name := range baseline.Files {
		_, inA := a[name]
		_, inB := b[name]
		if inA || inB {
			out = append(out, name)
		}
	}
	return out
}

// cut is JSON text of at most maxShownText characters.
func cut(v []byte) string {
	if utf8.RuneCount(v) <= maxShownText {
		return string(v)
	}
	r := []rune(string(v))
	return string(r[:maxShownText]) + "…"
}
