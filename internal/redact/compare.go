package redact

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Comparison is what two versions of one artifact say once redacted: two
// runs (Compare) or a baseline and a fresh run (CompareBaseline).
type Comparison struct {
	// Old and New are the two redacted. For CompareBaseline, Old is the
	// current rules applied to the baseline: its Places are values the
	// baseline holds as they were and the rules redact now.
	Old, New Redacted
	// Same reports whether the two are byte-identical once redacted (for
	// CompareBaseline: the baseline as it is and the fresh run redacted).
	Same bool
	// Hidden are the values that differ only where the rules redact them
	// to the same value: what a report counts ("3 redacted values differ")
	// and check --show-redacted shows.
	Hidden []Hidden
	// Differences are where the two differ once redacted, in the old one's
	// order: none when Same, unless only the layout differs.
	Differences []Difference
}

// Hidden is a value two versions hold differently and redact alike.
type Hidden struct {
	Pointer string `json:"pointer"`
	Rules   []int  `json:"rules"`
	// Old and New are the two values before redaction (for a baseline,
	// what it holds: the redacted value); Value is what both redact to.
	Old   json.RawMessage `json:"old"`
	New   json.RawMessage `json:"new"`
	Value json.RawMessage `json:"value"`
}

// Cause says how a redaction takes part in a difference.
type Cause string

const (
	// CauseNone: no rule takes part; the values differ.
	CauseNone Cause = ""
	// CauseTypeChanged: both values are markers, of different types: a
	// redacted field changed type, a change of behaviour.
	CauseTypeChanged Cause = "type-changed"
	// CauseAdded: the current rules redact a value the baseline holds as it
	// was: a rule was added or widened since the baseline was recorded.
	CauseAdded Cause = "redaction-added"
	// CauseRemoved: the baseline holds a marker where no rule redacts the
	// value now: a rule was removed or narrowed since.
	CauseRemoved Cause = "redaction-removed"
	// CauseRedacted: the value is one the current rules rewrite, and the
	// two rewritten differ (the text around a pattern's matches, or a
	// replace text edited since the baseline was recorded).
	CauseRedacted Cause = "redacted-place"
)

// Difference is one place where two redacted versions differ.
type Difference struct {
	// Pointer is where, as an RFC 6901 pointer; for two objects with the
	// same members in another order, the objects' own.
	Pointer string `json:"pointer"`
	// Old and New are the two values redacted, as compact JSON; nil when
	// that version has no value there.
	Old   json.RawMessage `json:"old"`
	New   json.RawMessage `json:"new"`
	Cause Cause           `json:"cause,omitempty"`
	// Rules are the rules that take part, by index.
	Rules []int `json:"rules,omitempty"`
	at    []pathSeg
}

// pathSeg is a key or an index of a difference's place.
type pathSeg struct {
	text  string
	index bool
}

// Compare redacts two runs of artifact, old and new, as they were
// written, and compares them: the gate of record (two runs that must
// agree) and of check's repeated runs.
func (r Rules) Compare(artifact string, old, new []byte) (Comparison, error) {
	ro, err := r.applyCompact(artifact, old)
	if err != nil {
		return Comparison{}, err
	}
	rn, err := r.applyCompact(artifact, new)
	if err != nil {
		return Comparison{}, err
	}
	cmp := Comparison{Old: ro, New: rn, Same: bytes.Equal(ro.Data, rn.Data)}
	var pointers []string
	seen := map[string]bool{}
	for _, p := range append(slices.Clone(ro.Places), rn.Places...) {
		if !seen[p.Pointer] {
			seen[p.Pointer] = true
			pointers = append(pointers, p.Pointer)
		}
	}
	places := indexPlaces(ro.Places, rn.Places)
	ov, nv := lookupAll(ro.compact, pointers), lookupAll(rn.compact, pointers)
	or, nr := lookupAll(ro.raw, pointers), lookupAll(rn.raw, pointers)
	for i, p := range pointers {
		if ov[i] != nil && bytes.Equal(ov[i], nv[i]) && !bytes.Equal(or[i], nr[i]) {
			cmp.Hidden = append(cmp.Hidden, Hidden{Pointer: p, Rules: places.at(p),
				Old: or[i], New: nr[i], Value: ov[i]})
		}
	}
	cmp.Differences = differences(ro.compact, rn.compact)
	for i := range cmp.Differences {
		d := &cmp.Differences[i]
		if rules := places.at(d.Pointer); len(rules) > 0 {
			d.Cause, d.Rules = CauseRedacted, rules
			if isMarker(d.Old) && isMarker(d.New) {
				d.Cause = CauseTypeChanged
			}
		}
	}
	return cmp, nil
}

// CompareBaseline compares a baseline (frozen, the bytes the store holds,
// redacted when it was recorded) with a fresh run of artifact as it was
// written (fresh, redacted here): the gate of check. The fresh run
// redacted is New.Data, what the caller compares and shows. A difference
// a rule takes part in says how (Cause), so a rule added, removed or
// edited since the baseline was recorded is named where it changes the
// artifact; a rule changed in a way that changes nothing here is no
// difference.
func (r Rules) CompareBaseline(artifact string, frozen, fresh []byte) (Comparison, error) {
	rn, err := r.applyCompact(artifact, fresh)
	if err != nil {
		return Comparison{}, err
	}
	af, err := r.applyCompact(artifact, frozen)
	if err != nil {
		return Comparison{}, fmt.Errorf("baseline: %w", err)
	}
	cmp := Comparison{Old: af, New: rn, Same: bytes.Equal(frozen, rn.Data)}
	pointers := make([]string, len(rn.Places))
	for i, p := range rn.Places {
		pointers[i] = p.Pointer
	}
	for i, fv := range lookupAll(af.raw, pointers) {
		if p := rn.Places[i]; bytes.Equal(fv, p.Value) && !bytes.Equal(fv, p.Raw) {
			cmp.Hidden = append(cmp.Hidden, Hidden{Pointer: p.Pointer, Rules: p.Rules, Old: fv, New: p.Raw, Value: p.Value})
		}
	}
	cmp.Differences = differences(af.raw, rn.compact)
	nowAt, addedAt := indexPlaces(rn.Places), indexPlaces(af.Places)
	for i := range cmp.Differences {
		d := &cmp.Differences[i]
		now := nowAt.at(d.Pointer)
		switch added := addedAt.at(d.Pointer); {
		case isMarker(d.Old) && isMarker(d.New):
			d.Cause, d.Rules = CauseTypeChanged, now
		case len(added) > 0:
			d.Cause, d.Rules = CauseAdded, added
		case isMarker(d.Old) && d.New != nil && len(r.wholeAt(artifact, d.at)) == 0:
			d.Cause = CauseRemoved
		case len(now) > 0:
			d.Cause, d.Rules = CauseRedacted, now
		}
	}
	return cmp, nil
}

// applyCompact is Apply, with the compact forms set even when nothing was
// redacted.
func (r Rules) applyCompact(artifact string, data []byte) (Redacted, error) {
	res, err := r.Apply(artifact, data)
	if err != nil || data == nil || res.raw != nil {
		return res, err
	}
	if res.raw, err = compactOf(data); err != nil {
		return Redacted{}, fmt.Errorf("redact %s: %w", artifact, err)
	}
	res.compact = res.raw
	return res, nil
}

// placeIndex holds the rules of places by pointer.
type placeIndex map[string][]int

func indexPlaces(lists ...[]Place) placeIndex {
	x := placeIndex{}
	for _, places := range lists {
		for _, p := range places {
			for _, k := range p.Rules {
				if !slices.Contains(x[p.Pointer], k) {
					x[p.Pointer] = append(x[p.Pointer], k)
				}
			}
		}
	}
	return x
}

// at lists the rules of the places at pointer or above it.
func (x placeIndex) at(pointer string) []int {
	var out []int
	for i := 0; i <= len(pointer); i++ {
		if i < len(pointer) && pointer[i] != '/' {
			continue
		}
		for _, k := range x[pointer[:i]] {
			if !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	slices.Sort(out)
	return out
}

// wholeAt lists the rules without a pattern of artifact that select the
// value at, or one above it.
func (r Rules) wholeAt(artifact string, at []pathSeg) []int {
	var out []int
	for i, c := range r.list {
		if c.Artifact != artifact || c.re != nil {
			continue
		}
		s := c.start()
		hit := c.selects(s)
		for _, p := range at {
			if s = c.step(s, []byte(p.text)); s == 0 {
				break
			}
			hit = hit || c.selects(s)
		}
		if hit {
			out = append(out, i)
		}
	}
	return out
}

// Explain says in a few words how a difference's rules take part in it,
// for a report line; "" when none does.
func (r Rules) Explain(d Difference) string {
	names := make([]string, len(d.Rules))
	for i, k := range d.Rules {
		names[i] = r.Name(k)
	}
	who := strings.Join(names, ", ")
	switch d.Cause {
	case CauseTypeChanged:
		s := fmt.Sprintf("a redacted value changed type, %s → %s", markerType(d.Old), markerType(d.New))
		if who != "" {
			s += " (" + who + ")"
		}
		return s
	case CauseAdded:
		return who + " redacts a value the baseline holds as it was: a redaction added or widened since the baseline was recorded"
	case CauseRemoved:
		return "the baseline holds a redaction marker that no rule makes now: a redaction removed or narrowed since the baseline was recorded"
	case CauseRedacted:
		return "at a value " + who + " rewrites"
	}
	return ""
}

// markerType is the type a marker names.
func markerType(v []byte) string {
	s := string(v)
	s = strings.TrimPrefix(s, `"[redacted: `)
	return strings.TrimSuffix(s, `]"`)
}

// differences lists where the compact values a and b differ.
func differences(a, b []byte) []Difference {
	var out []Difference
	diffValues(a, b, nil, &out)
	return out
}

func diffValues(a, b []byte, at []pathSeg, out *[]Difference) {
	if bytes.Equal(a, b) {
		return
	}
	add := func(a, b []byte) {
		*out = append(*out, Difference{Pointer: pointerOf(at), Old: a, New: b, at: slices.Clip(slices.Clone(at))})
	}
	if a == nil || b == nil || a[0] != b[0] || (a[0] != '{' && a[0] != '[') {
		add(a, b)
		return
	}
	before := len(*out)
	if a[0] == '[' {
		ca, cb := members(a), members(b)
		for i := 0; ; i++ {
			x, okx := ca.next()
			y, oky := cb.next()
			if !okx && !oky {
				break
			}
			diffValues(x.value, y.value, append(at, pathSeg{text: strconv.Itoa(i), index: true}), out)
		}
	} else {
		// members matched by key, the nth of a key given more than once
		// with the nth
		kb := children(b)
		byKey := map[string][]int{}
		for j, m := range kb {
			k := string(keyText(m.key))
			byKey[k] = append(byKey[k], j)
		}
		used := make([]bool, len(kb))
		for ca := members(a); ; {
			m, ok := ca.next()
			if !ok {
				break
			}
			k := string(keyText(m.key))
			var y []byte
			if js := byKey[k]; len(js) > 0 {
				y, used[js[0]] = kb[js[0]].value, true
				byKey[k] = js[1:]
			}
			diffValues(m.value, y, append(at, pathSeg{text: k}), out)
		}
		for j, m := range kb {
			if !used[j] {
				diffValues(nil, m.value, append(at, pathSeg{text: string(keyText(m.key))}), out)
			}
		}
	}
	if len(*out) == before {
		add(a, b) // the same members in another order
	}
}

// pointerOf writes a place's keys and indices as an RFC 6901 pointer.
func pointerOf(at []pathSeg) string {
	var b strings.Builder
	for _, s := range at {
		b.WriteByte('/')
		b.WriteString(escapeKey(s.text))
	}
	return b.String()
}
