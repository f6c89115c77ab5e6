package redact

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/agent-oracle/oracle/internal/safeio"
)

// ParseRules reads a "redact" list strictly: a JSON array of one or more
// objects, each with the keys artifact and path (strings) and optionally
// pattern and replace (strings). An unknown key, a key given twice or in
// another letter case, a value of the wrong type, an unknown artifact, a
// path that is not a pointer as Rule describes it, a pattern that does not
// compile or that matches the empty string or its own replace text, a
// replace without a pattern, two entries that are the same rule and an
// empty list are errors; an error about an entry is a *RuleError naming it
// (redact[2].pattern: …).
func ParseRules(data []byte) (Rules, error) {
	if err := safeio.CheckLimits(data); err != nil {
		return Rules{}, fmt.Errorf("redact: the list %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return Rules{}, fmt.Errorf("redact: not valid JSON: %v", err)
	}
	if tok != json.Delim('[') {
		return Rules{}, fmt.Errorf("redact: must be a list of rules, not %s", kindOfToken(tok))
	}
	var rules []Rule
	for dec.More() {
		i := len(rules)
		if i == MaxRules {
			return Rules{}, fmt.Errorf("redact: more than %d rules", MaxRules)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return Rules{}, &RuleError{Index: i, Err: fmt.Errorf("not valid JSON: %v", err)}
		}
		r, err := parseEntry(i, raw)
		if err != nil {
			return Rules{}, err
		}
		rules = append(rules, r)
	}
	if _, err := dec.Token(); err != nil {
		return Rules{}, fmt.Errorf("redact: not valid JSON: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return Rules{}, fmt.Errorf("redact: more than one JSON value; the list is one array")
	}
	if len(rules) == 0 {
		return Rules{}, ErrEmpty
	}
	return New(rules...)
}

// ruleKeys are the keys of an entry, in the order errors list them.
var ruleKeys = []string{"artifact", "path", "pattern", "replace"}

// parseEntry reads entry i of a list, an object of ruleKeys with string
// values; what the values mean is New's to check.
func parseEntry(i int, raw json.RawMessage) (Rule, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, _ := dec.Token() // raw is one valid value
	if tok != json.Delim('{') {
		return Rule{}, ruleErr(i, "", "must be an object with artifact and path, not %s", kindOfToken(tok))
	}
	var r Rule
	seen := map[string]bool{}
	for dec.More() {
		tok, _ := dec.Token()
		key := tok.(string) // an object's keys are strings
		if !slices.Contains(ruleKeys, key) {
			for _, k := range ruleKeys {
				if strings.EqualFold(key, k) {
					return Rule{}, ruleErr(i, "", "key %s is spelt %q; keys match exactly, letter case included", quote(key), k)
				}
			}
			return Rule{}, ruleErr(i, "", "unknown key %s; a rule has artifact, path and optionally pattern and replace", quote(key))
		}
		if seen[key] {
			return Rule{}, ruleErr(i, key, "is given twice; keep one")
		}
		seen[key] = true
		tok, _ = dec.Token()
		s, ok := tok.(string)
		if !ok {
			return Rule{}, ruleErr(i, key, "must be a string, not %s", kindOfToken(tok))
		}
		switch key {
		case "artifact":
			r.Artifact = s
		case "path":
			r.Path = s
		case "pattern":
			r.Pattern = s
			if s == "" {
				return Rule{}, ruleErr(i, key, "is empty; leave pattern out to redact the whole value")
			}
		case "replace":
			r.Replace = &s
		}
	}
	switch {
	case !seen["artifact"]:
		return Rule{}, ruleErr(i, "artifact", "is missing; name one of %s", knownArtifacts)
	case !seen["path"]:
		return Rule{}, ruleErr(i, "path", `is missing; give a JSON Pointer such as "/checks/*/detail" ("" is the whole artifact)`)
	}
	return r, nil
}

// kindOfToken names the JSON type of the value a token starts.
func kindOfToken(tok json.Token) string {
	switch tok := tok.(type) {
	case json.Delim:
		if tok == '[' {
			return "an array"
		}
		return "an object"
	case string:
		return "a string"
	case float64, json.Number:
		return "a number"
	case bool:
		return "a boolean"
	}
	return "null"
}
