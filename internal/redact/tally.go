package redact

import "fmt"

// Tally adds up what each rule of a list did over many artifacts (the
// baselines of an environment, or fresh runs), for validate's warning: a
// rule whose path never selects anything the artifacts hold is a typo
// until shown otherwise, not a silent no-op.
type Tally struct {
	rules Rules
	uses  []RuleUse
	read  map[string]int // artifacts added, by name
}

// Tally starts a tally of r's rules.
func (r Rules) Tally() *Tally {
	return &Tally{rules: r, uses: make([]RuleUse, len(r.list)), read: map[string]int{}}
}

// Add counts what Apply gave for one artifact called artifact. An
// artifact that was absent (nil) is not counted.
func (t *Tally) Add(artifact string, res Redacted) {
	if res.Data == nil {
		return
	}
	t.read[artifact]++
	for i, u := range res.Uses {
		if i < len(t.uses) {
			t.uses[i].Selected += u.Selected
			t.uses[i].Changed += u.Changed
		}
	}
}

// Uses returns the sums, by rule.
func (t *Tally) Uses() []RuleUse { return append([]RuleUse(nil), t.uses...) }

// Warnings lists, one line each, the rules that selected nothing in the
// artifacts added, naming each rule. A rule is judged only when some
// artifact it names was added: before the first record there is nothing
// to judge it by, and a rule of an artifact the environment does not
// freeze is for the caller to point out from the manifest.
func (t *Tally) Warnings() []string {
	var out []string
	for i, u := range t.uses {
		c := t.rules.list[i]
		n := t.read[c.Artifact]
		if u.Selected > 0 || n == 0 {
			continue
		}
		switch {
		case c.re != nil:
			out = append(out, fmt.Sprintf("%s selects no string in the %s of %d %s; fix the path or remove the rule", t.rules.Name(i), c.Artifact, n, plural(n, "case")))
		default:
			out = append(out, fmt.Sprintf("%s selects nothing in the %s of %d %s; fix the path or remove the rule", t.rules.Name(i), c.Artifact, n, plural(n, "case")))
		}
	}
	return out
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
