package oracle

import (
	"unicode/utf8"

	"github.com/agent-oracle/oracle/baseline"
)

// Redacted is what the rules of a case's environment redacted in its
// fresh artifacts: how many values, how many of them the runs held
// differently (what the redaction hid from the comparison), and, for check
// --show-redacted, which.
type Redacted struct {
	// Values counts the values the rules redacted in the first run's
	// artifacts.
	Values int `json:"values"`
	// Differ counts the redacted values that a later run held otherwise
	// before redaction. Nil when the case ran once: against a baseline,
	// which holds the redacted values, what each was is not known. Being
	// volatile, it may differ from one check to the next.
	Differ *int `json:"differ,omitempty"`
	// Shown lists the redacted values, in the order of the files and of
	// each file, when the check was asked to show them
	// (Options.ShowRedacted); at most maxShownValues, More counts the rest.
	// A report folder never holds them: they are the values the
	// environment declared volatile.
	Shown []RedactedValue `json:"shown,omitempty"`
	More  int             `json:"more,omitempty"`
}

// RedactedValue is one redacted value of a case, as check --show-redacted
// shows it. Values are JSON text, cut at maxShownText characters (an …
// then ends them).
type RedactedValue struct {
	File    string `json:"file"`
	Pointer string `json:"pointer"`
	// Rules are the rules that redacted it, by index in the environment's
	// list (redact[2]).
	Rules []int `json:"rules"`
	// First is the value in the first run; Later, when a later run held it
	// otherwise, the value there; Value is what both are redacted to.
	First string `json:"first"`
	Later string `json:"later,omitempty"`
	Value string `json:"value"`
}

// Limits of what a report holds of the redactions.
const (
	maxShownValues  = 100 // values shown for one case
	maxShownText    = 200 // characters of one value shown
	maxNotePointers = 5   // places a note lists
)

// report says in a case's report what r did; show keeps the values for
// check --show-redacted.
func (r *runRedaction) report(show bool) *Redacted {
	if r == nil {
		return nil
	}
	out := &Redacted{}
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
			v := RedactedValue{File: name, Pointer: p.Pointer, Rules: p.Rules, First: cut(p.Raw), Value: cut(p.Value)}
			if differs {
				v.Later = cut(r.hidden[name][i].New)
			}
			out.Shown = append(out.Shown, v)
		}
		for _, h := range r.hidden[name] {
			if _, done := shown[h.Pointer]; !done && room() {
				out.Shown = append(out.Shown, RedactedValue{File: name, Pointer: h.Pointer, Rules: h.Rules, First: cut(h.Old), Later: cut(h.New), Value: cut(h.Value)})
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

// Unshown returns c without the redacted values it shows, for a file of a
// report folder: c itself when it shows none.
func (c *CaseReport) Unshown() *CaseReport {
	if c.Redacted == nil || c.Redacted.Shown == nil {
		return c
	}
	cp, r := *c, *c.Redacted
	r.Shown, r.More = nil, 0
	cp.Redacted = &r
	return &cp
}
