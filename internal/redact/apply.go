package redact

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/agent-oracle/oracle/internal/safeio"
)

// Redacted is one artifact after redaction.
type Redacted struct {
	// Data is the artifact redacted, written as the artifacts are (two-space
	// indentation, a trailing newline, numbers as written, keys in their
	// order). When nothing was redacted it is the artifact as it was given.
	Data []byte
	// Places are the values redacted, in the artifact's order.
	Places []Place
	// Uses holds, for each rule of the list by index, what its path
	// selected and what it changed in this artifact; a rule of another
	// artifact has zeros.
	Uses []RuleUse
	// raw and compact are the artifact's compact form before and after
	// redaction
	raw, compact []byte
}

// Place is one redacted value.
type Place struct {
	// Pointer is where the value is, as an RFC 6901 JSON Pointer.
	Pointer string `json:"pointer"`
	// Rules are the rules that changed it, by index: the rules without a
	// pattern that select it, or those with one whose matches it held.
	Rules []int `json:"rules"`
	// Raw is the value before redaction and Value after it: a marker, or
	// the string with its matches replaced. Both are compact JSON.
	Raw   json.RawMessage `json:"raw"`
	Value json.RawMessage `json:"value"`
}

// RuleUse is what a rule did to one artifact, or (added up) to many.
type RuleUse struct {
	// Selected counts the values the rule's path selects: any value for a
	// rule without a pattern, a string for one with a pattern (a marker
	// included, so a redacted baseline counts as the artifact it came
	// from did). Values inside one another rule redacts whole count too.
	Selected int `json:"selected"`
	// Changed counts the values the rule changed.
	Changed int `json:"changed"`
}

// Apply redacts the artifact called artifact, data as oracle writes it
// (any JSON value within safeio's limits is taken). Rules of other
// artifacts are not used; with none for this artifact, or when nothing is
// redacted, data is returned as it is. Data nil (an artifact that is
// absent) is returned as nil. A value selected by a rule without a pattern
// becomes the marker of its type; a string selected by rules with a
// pattern gets their matches replaced, rule after rule in the list's
// order; a marker is left as it is, so applying rules to what they gave
// gives it again. A string whose rules, applied to what they gave, would
// change it again is an error naming them.
func (r Rules) Apply(artifact string, data []byte) (Redacted, error) {
	res := Redacted{Data: data, Uses: make([]RuleUse, len(r.list))}
	w := r.walkerFor(artifact)
	if data == nil || len(w.rules) == 0 {
		return res, nil
	}
	compact, err := compactOf(data)
	if err != nil {
		return Redacted{}, fmt.Errorf("redact %s: %w", artifact, err)
	}
	res.raw, res.compact = compact, compact
	w.out = make([]byte, 0, len(compact))
	st := make([]states, len(w.rules))
	for k, c := range w.rules {
		st[k] = c.start()
	}
	w.walk(compact, st, true)
	if w.err != nil {
		return Redacted{}, fmt.Errorf("redact %s: %w", artifact, w.err)
	}
	for k, u := range w.uses {
		res.Uses[w.index[k]] = u
	}
	if len(w.places) == 0 {
		return res, nil
	}
	res.Places, res.compact = w.places, w.out
	if res.Data, err = layout(w.out); err != nil {
		return Redacted{}, fmt.Errorf("redact %s: %w", artifact, err)
	}
	if len(res.Data) > maxOutput {
		return Redacted{}, fmt.Errorf("redact %s: the redacted artifact is larger than the limit of %d bytes", artifact, maxOutput)
	}
	return res, nil
}

// Bounds of one artifact's redaction: the size of what it writes (the
// size of an artifact oracle writes or reads) and the number of values it
// redacts. Variables so that tests can reach them cheaply.
var (
	maxOutput = safeio.MaxBytes
	maxPlaces = 1_000_000
)

// replaceAll is re.ReplaceAllLiteralString(s, repl), or false when the
// result would be longer than limit: it stops replacing there, so what it
// builds stays within the limit.
func replaceAll(re *regexp.Regexp, s, repl string, limit int) (string, bool) {
	size, over := len(s), false
	out := re.ReplaceAllStringFunc(s, func(m string) string {
		if over {
			return m
		}
		if size += len(repl) - len(m); size > limit {
			over = true
			return m
		}
		return repl
	})
	return out, !over
}

// walker redacts one artifact.
type walker struct {
	rules  []*compiled // the rules of the artifact
	index  []int       // each one's index in the list
	out    []byte
	path   []walkSeg // from the root to the value being walked
	places []Place
	uses   []RuleUse // by position in rules
	err    error
	key    []byte // an index's key, reused
}

// walkSeg is a key or an index on the way from the root to a value.
type walkSeg struct {
	key   []byte // the quoted key; nil for an array's index
	index int
}

// pointer writes the walker's path as an RFC 6901 pointer.
func (w *walker) pointer() string {
	at := make([]pathSeg, len(w.path))
	for i, s := range w.path {
		if s.key == nil {
			at[i] = pathSeg{text: strconv.Itoa(s.index), index: true}
		} else {
			at[i] = pathSeg{text: string(keyText(s.key))}
		}
	}
	return pointerOf(at)
}

func (r Rules) walkerFor(artifact string) *walker {
	w := &walker{}
	for i, c := range r.list {
		if c.Artifact == artifact {
			w.rules = append(w.rules, c)
			w.index = append(w.index, i)
		}
	}
	w.uses = make([]RuleUse, len(w.rules))
	return w
}

// walk redacts the value v, at which the rules' paths are at st, and
// appends the result to w.out when emit is set; otherwise (inside a value
// a rule redacts whole) it only counts what the rules select.
func (w *walker) walk(v []byte, st []states, emit bool) {
	if w.err != nil {
		return
	}
	var whole, pattern []int // the rules that select v
	live := false            // some path can go on below v
	for k, c := range w.rules {
		if st[k] == 0 {
			continue
		}
		if c.selects(st[k]) {
			if c.re == nil {
				whole = append(whole, k)
			} else {
				pattern = append(pattern, k)
			}
		}
		if st[k]&^(1<<len(c.segs)) != 0 {
			live = true
		}
	}
	str := v[0] == '"'
	for _, k := range whole {
		w.uses[k].Selected++
	}
	if str {
		for _, k := range pattern {
			w.uses[k].Selected++
		}
	}
	switch {
	case str && isMarker(v):
		// already redacted: left as it is
	case len(whole) > 0:
		if emit {
			marker := markers[typeName(v)]
			w.out = append(w.out, marker...)
			w.place(whole, v, marker)
			for _, k := range whole {
				w.uses[k].Changed++
			}
		}
		if live {
			w.walkChildren(v, st, false) // what lies inside is counted, not written
		}
		return
	case str && len(pattern) > 0 && emit:
		w.replace(v, pattern)
		return
	case live && (v[0] == '{' || v[0] == '['):
		w.walkChildren(v, st, emit)
		return
	}
	if emit {
		w.out = append(w.out, v...)
	}
}

// walkChildren walks the members or elements of v.
func (w *walker) walkChildren(v []byte, st []states, emit bool) {
	if emit {
		w.out = append(w.out, v[0])
	}
	next := make([]states, len(st))
	c := members(v)
	for i := 0; ; i++ {
		m, ok := c.next()
		if !ok {
			break
		}
		var key []byte
		if m.key != nil {
			key = keyText(m.key)
		} else {
			w.key = index(w.key, i)
			key = w.key
		}
		any := false
		for k, c := range w.rules {
			if next[k] = 0; st[k] != 0 {
				next[k] = c.step(st[k], key)
				any = any || next[k] != 0
			}
		}
		if emit {
			if i > 0 {
				w.out = append(w.out, ',')
			}
			if m.key != nil {
				w.out = append(append(w.out, m.key...), ':')
			}
		}
		if !any {
			if emit {
				w.out = append(w.out, m.value...)
			}
			continue
		}
		w.path = append(w.path, walkSeg{key: m.key, index: i})
		w.walk(m.value, next, emit)
		w.path = w.path[:len(w.path)-1]
		if len(w.out) > maxOutput {
			w.err = fmt.Errorf("the redacted artifact is larger than the limit of %d bytes", maxOutput)
		}
		if w.err != nil {
			return
		}
	}
	if emit {
		w.out = append(w.out, v[len(v)-1])
	}
}

// replace writes the string v with the matches of the pattern rules
// replaced.
func (w *walker) replace(v []byte, rules []int) {
	s := stringText(v)
	got, by := w.patterns(s, rules)
	if w.err != nil {
		return
	}
	if len(by) == 0 {
		w.out = append(w.out, v...)
		return
	}
	if again, _ := w.patterns(got, rules); w.err == nil && again != got {
		names := make([]string, len(by))
		for i, k := range by {
			names[i] = fmt.Sprintf("redact[%d]", w.index[k])
		}
		w.err = fmt.Errorf("at %s, %s applied to what they gave change it again (%s, then %s); choose a replace text the patterns cannot match around it",
			quote(w.pointer()), strings.Join(names, ", "), quote(got), quote(again))
		return
	}
	for _, k := range by {
		w.uses[k].Changed++
	}
	start := len(w.out)
	w.out = appendString(w.out, got)
	w.place(by, v, w.out[start:])
}

// patterns applies the pattern rules to s in order and says which changed
// it. A marker is left as it is.
func (w *walker) patterns(s string, rules []int) (string, []int) {
	var by []int
	for _, k := range rules {
		if isMarkerText(s) {
			break
		}
		c := w.rules[k]
		next, ok := replaceAll(c.re, s, c.replace, maxOutput)
		if !ok {
			w.err = fmt.Errorf("at %s, redact[%d] makes the string larger than the limit of %d bytes", quote(w.pointer()), w.index[k], maxOutput)
			return s, nil
		}
		if next != s {
			s = next
			by = append(by, k)
		}
	}
	return s, by
}

// place records a redacted value.
func (w *walker) place(rules []int, raw, value []byte) {
	if len(w.places) == maxPlaces {
		w.err = fmt.Errorf("redacts more than %d values; redact the array or object that holds them as a whole", maxPlaces)
		return
	}
	idx := make([]int, len(rules))
	for i, k := range rules {
		idx[i] = w.index[k]
	}
	slices.Sort(idx)
	w.places = append(w.places, Place{Pointer: w.pointer(), Rules: idx, Raw: raw, Value: slices.Clone(value)})
}
