package redact

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/agent-oracle/oracle/internal/canon"
)

// Proposal is what Propose suggests.
type Proposal struct {
	// Rules are the rules to add to the list, in the order of the places
	// the runs first differ at.
	Rules []Rule
	// JSON is Rules as entries of a "redact" list, written as a manifest is
	// (two-space indentation, a trailing newline), ready to paste.
	JSON []byte
	// Stable reports whether the list with Rules added redacts every run to
	// the same bytes. It is false when the runs differ in their shape (a
	// value only some of them have, an array of another length) too high up
	// for a rule to keep the rest: the environment is the place to fix it.
	Stable bool
	// Graded are the places where the runs differ that grade the rollout
	// (Graded), which no rule may reach: a verdict that varies is a
	// nondeterministic environment or a model agent, never a volatile
	// field. No rule is proposed for them (nor for a whole artifact), and
	// Stable is then false.
	Graded []string
	// Shape reports whether the runs differ in the shape of the whole
	// artifact (an array of another length at its top), for which no rule
	// is proposed either.
	Shape bool
}

// token is a kind of volatile text inside a string, which a rule with a
// pattern can take out and leave the rest.
type token struct {
	pattern, replace string
	re               *regexp.Regexp
}

// tokens are the kinds of volatile text Propose knows, the most specific
// first: a temporary path (which may hold any of the others), a UUID, an
// RFC 3339 time (its offset optional), a number standing alone, a hex id
// of eight digits or more.
var tokens = func() []token {
	t := []token{
		{pattern: `(?:/private)?/(?:tmp|var/tmp|var/folders)(?:/[\w.+@%-]+)+|[A-Za-z]:\\Users\\[^\\\s"]+\\AppData\\Local\\Temp(?:\\[\w.+@%-]+)+`, replace: "[temp-path]"},
		{pattern: `[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`, replace: "[uuid]"},
		{pattern: `[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?(?:[Zz]|[+-][0-9]{2}:[0-9]{2})?`, replace: "[time]"},
		{pattern: `\b[0-9]+(?:\.[0-9]+)?\b`, replace: "[number]"},
		{pattern: `\b[0-9a-fA-F]{8,}\b`, replace: "[hex]"},
	}
	for i := range t {
		t[i].re = regexp.MustCompile(t[i].pattern)
	}
	return t
}()

// candidate is a rule Propose is making: its path, each segment a key,
// an index or *, and the token it takes out (-1: the whole value).
type candidate struct {
	at  []sel
	tok int
}

type sel struct {
	text  string
	index bool // an array's index
	wild  bool // *
}

// Propose suggests the rules to add to r so that runs of artifact, as
// they were written, redact to the same bytes: for each place where a run
// differs from the first once r is applied, a rule for that place. A
// string whose runs differ only in embedded volatile text (a temporary
// path, a UUID, an RFC 3339 time, a number, a hex id) gets a rule with a
// pattern that replaces that text, and its array indices become *, so a
// check's detail that quotes a volatile value is covered in every check
// (/checks/*/detail). Any other value gets a rule for the whole value; a
// value some runs lack, one for the closest value above it all runs have.
// Places that differ in the same field of two or more members of an array,
// or of an object keyed by ids (keys that hold a digit), become one rule
// with * in that segment. Nothing is applied.
func (r Rules) Propose(artifact string, runs ...[]byte) (Proposal, error) {
	if len(runs) < 2 {
		return Proposal{}, errors.New("propose: needs two runs or more")
	}
	red := make([][]byte, len(runs))
	for i, run := range runs {
		if run == nil {
			return Proposal{}, fmt.Errorf("propose: run %d has no %s artifact", i+1, artifact)
		}
		res, err := r.applyCompact(artifact, run)
		if err != nil {
			return Proposal{}, fmt.Errorf("propose: run %d: %w", i+1, err)
		}
		red[i] = res.compact
	}
	var places [][]pathSeg
	var pointers []string
	seen := map[string]bool{}
	for _, run := range red[1:] {
		for _, d := range differences(red[0], run) {
			if !seen[d.Pointer] {
				seen[d.Pointer] = true
				places, pointers = append(places, d.at), append(pointers, d.Pointer)
			}
		}
	}
	vals := make([][][]byte, len(red)) // by run, by place
	for i, run := range red {
		vals[i] = lookupAll(run, pointers)
	}
	var cands []candidate
	for j, at := range places {
		here := make([][]byte, len(red))
		for i := range red {
			here[i] = vals[i][j]
		}
		cands = append(cands, candidatesAt(at, here, red)...)
	}
	cands = generalise(cands)
	rules := make([]Rule, 0, len(cands))
	have := map[string]bool{}
	for _, c := range r.list {
		have[c.key()] = true
	}
	var gradedAt []string
	unbounded := false
	for _, c := range cands {
		rule := c.rule(artifact)
		k, err := compileAny(0, rule)
		if err != nil {
			return Proposal{}, fmt.Errorf("propose: %w", err) // not reached: the paths and tokens are valid
		}
		if !bounded(k.segs) {
			unbounded = true // the runs differ in the artifact's shape
			continue
		}
		if gradedBy(artifact, k.segs) != nil {
			gradedAt = append(gradedAt, rule.Path)
			continue
		}
		if !have[k.key()] {
			have[k.key()] = true
			rules = append(rules, rule)
		}
	}
	p := Proposal{Rules: rules, Graded: gradedAt, Shape: unbounded}
	var err error
	if p.JSON, err = canon.Marshal(rules); err != nil {
		return Proposal{}, fmt.Errorf("propose: %w", err)
	}
	all, err := New(append(r.List(), rules...)...)
	if err != nil {
		return Proposal{}, fmt.Errorf("propose: %w", err)
	}
	p.Stable = !unbounded && len(gradedAt) == 0
	var first []byte
	for i, run := range runs {
		if !p.Stable {
			break
		}
		res, err := all.Apply(artifact, run)
		if err != nil {
			// a rule proposed here meets a string it cannot redact twice
			// alike: not stable
			p.Stable = false
			break
		}
		if i == 0 {
			first = res.Data
		} else if string(res.Data) != string(first) {
			p.Stable = false
			break
		}
	}
	return p, nil
}

// candidatesAt proposes the rules for one place where the runs (compact,
// redacted by the rules already there) differ, vals being what each run
// holds there.
func candidatesAt(at []pathSeg, vals [][]byte, runs [][]byte) []candidate {
	for len(at) > MaxSegments || len(at) > 0 && slices.ContainsFunc(vals, func(v []byte) bool { return v == nil }) {
		// deeper than a path goes, or a value some runs lack: the one
		// above it
		at = at[:len(at)-1]
		keys := make([]string, len(at))
		for i, s := range at {
			keys[i] = s.text
		}
		for i, run := range runs {
			vals[i] = lookup(run, keys)
		}
	}
	path := make([]sel, len(at))
	for i, s := range at {
		path[i] = sel{text: s.text, index: s.index}
	}
	texts := make([]string, len(vals))
	for i, v := range vals {
		if v == nil || v[0] != '"' {
			return []candidate{{at: path, tok: -1}}
		}
		texts[i] = stringText(v)
	}
	toks, ok := explain(texts)
	if !ok {
		return []candidate{{at: path, tok: -1}}
	}
	out := make([]candidate, len(toks))
	for i, t := range toks {
		out[i] = candidate{at: slices.Clone(path), tok: t}
	}
	return out
}

// explain finds the fewest tokens, the most specific kept, whose
// replacement makes the texts equal; false when no set of them does.
func explain(texts []string) ([]int, bool) {
	set := make([]int, len(tokens))
	for i := range set {
		set[i] = i
	}
	if !sameAfter(texts, set) {
		return nil, false
	}
	for t := len(tokens) - 1; t >= 0; t-- {
		if try := slices.DeleteFunc(slices.Clone(set), func(x int) bool { return x == t }); sameAfter(texts, try) {
			set = try
		}
	}
	return set, true
}

// sameAfter reports whether the texts are equal once the tokens of set are
// replaced in each, in order.
func sameAfter(texts []string, set []int) bool {
	var first string
	for i, s := range texts {
		for _, t := range set {
			s = tokens[t].re.ReplaceAllLiteralString(s, tokens[t].replace)
		}
		if i == 0 {
			first = s
		} else if s != first {
			return false
		}
	}
	return true
}

// generalise makes the candidates' paths wider where the same field
// differs across members. A rule with a pattern gets * for every array
// index (it only ever replaces its token). Two or more candidates whose
// paths are the same once every index is * get * for every index; then
// candidates that differ in one key only, a key that looks like an id
// (idLike) with the same field below it (the same field of two members
// of an object keyed by id), become one with * there. Candidates that a
// rule for a whole value above them covers are dropped.
func generalise(cands []candidate) []candidate {
	for i := range cands {
		if cands[i].tok >= 0 {
			cands[i].wildIndices()
		}
	}
	cands = distinct(cands)
	groups := map[string]int{}
	for _, c := range cands {
		groups[c.template()]++
	}
	for i := range cands {
		if groups[cands[i].template()] > 1 {
			cands[i].wildIndices()
		}
	}
	cands = distinct(cands)
	for merged := true; merged; {
		merged = false
		for pos := 0; ; pos++ {
			next, any, more := mergeKeys(cands, pos)
			cands, merged = next, merged || any
			if !more {
				break
			}
		}
	}
	var out []candidate
	for _, c := range cands {
		if !c.coveredBy(cands) {
			out = append(out, c)
		}
	}
	return out
}

// wildIndices makes every index of the candidate's path *.
func (c *candidate) wildIndices() {
	for j, s := range c.at {
		if s.index {
			c.at[j] = sel{wild: true}
		}
	}
}

// template is the candidate's path and token with every index as *.
func (c candidate) template() string {
	t := candidate{at: slices.Clone(c.at), tok: c.tok}
	t.wildIndices()
	return t.keyWithout(-1)
}

// distinct drops the candidates that repeat an earlier one.
func distinct(cands []candidate) []candidate {
	var out []candidate
	seen := map[string]bool{}
	for _, c := range cands {
		if k := c.keyWithout(-1); !seen[k] {
			seen[k] = true
			out = append(out, c)
		}
	}
	return out
}

// mergeKeys merges the candidates that differ only in the key at pos,
// when the keys look like ids and a field lies below them; more reports whether any candidate is
// longer than pos.
func mergeKeys(cands []candidate, pos int) (out []candidate, merged, more bool) {
	groups := map[string][]int{}
	var order []string
	for i, c := range cands {
		if len(c.at) <= pos {
			continue
		}
		more = true
		if s := c.at[pos]; s.wild || s.index || pos == len(c.at)-1 || !idLike(s.text) {
			continue
		}
		k := c.keyWithout(pos)
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], i)
	}
	drop := make([]bool, len(cands))
	for _, k := range order {
		g := groups[k]
		if len(g) < 2 {
			continue
		}
		merged = true
		cands[g[0]].at[pos] = sel{wild: true}
		for _, i := range g[1:] {
			drop[i] = true
		}
	}
	for i, c := range cands {
		if !drop[i] {
			out = append(out, c)
		}
	}
	return out, merged, more
}

// idLike reports whether an object's key looks like a member's id rather
// than a field's name: it holds a digit (ACC-011, ord-7, a UUID).
func idLike(key string) bool { return strings.ContainsAny(key, "0123456789") }

// keyWithout is the candidate's path and token with segment pos left out.
func (c candidate) keyWithout(pos int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d:%d", c.tok, len(c.at))
	for i, s := range c.at {
		b.WriteByte(0)
		switch {
		case i == pos:
		case s.wild:
			b.WriteString("*")
		default:
			b.WriteString("=" + s.text)
		}
	}
	return b.String()
}

func (c candidate) same(o candidate) bool { return c.keyWithout(-1) == o.keyWithout(-1) }

// coveredBy reports whether a rule for a whole value among cands, other
// than c, selects c's value or one above it.
func (c candidate) coveredBy(cands []candidate) bool {
	for _, o := range cands {
		if o.tok >= 0 || len(o.at) > len(c.at) || o.same(c) {
			continue
		}
		covers := true
		for i, s := range o.at {
			if !s.wild && (c.at[i].wild || c.at[i].text != s.text) {
				covers = false
				break
			}
		}
		if covers {
			return true
		}
	}
	return false
}

// rule writes the candidate as a rule.
func (c candidate) rule(artifact string) Rule {
	var b strings.Builder
	for _, s := range c.at {
		b.WriteByte('/')
		if s.wild {
			b.WriteByte('*')
		} else {
			b.WriteString(selectorKey(s.text))
		}
	}
	if c.tok < 0 {
		return Whole(artifact, b.String())
	}
	return Match(artifact, b.String(), tokens[c.tok].pattern, tokens[c.tok].replace)
}
