package redact

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agent-oracle/oracle/internal/artifact"
	"github.com/agent-oracle/oracle/internal/canon"
)

// The artifacts a rule may name, as the table of artifacts names them.
var (
	Result    = nameOf(artifact.Result)
	StateDiff = nameOf(artifact.StateDiff)
	Calls     = nameOf(artifact.Calls)
)

func nameOf(file string) string {
	a, _ := artifact.Of(file)
	return a.Name
}

// knownArtifacts is how an error lists the artifacts a rule may name: the
// artifacts an environment freezes (artifact.Frozen).
var knownArtifacts = strings.Join(artifact.FrozenNames(), ", ")

func isArtifact(name string) bool {
	a, ok := artifact.Named(name)
	return ok && a.Frozen
}

// DefaultReplace is what a pattern's matches become when a rule gives no
// replace text.
const DefaultReplace = "[redacted]"

// Limits of a list of rules.
const (
	MaxRules       = 1000 // rules in one list
	MaxSegments    = 63   // segments of one path
	MaxPatternSize = 4096 // bytes of one pattern
	MaxReplaceSize = 1024 // bytes of one replace text
)

// Rule is one entry of a "redact" list, as the manifest writes it.
//
// Path is a JSON Pointer (RFC 6901: "" is the whole artifact, ~0 is ~ and
// ~1 is / in a key) in which a segment that is exactly * matches any one
// key or index and one that is exactly ** matches any number of them, none
// included. A * anywhere else in a segment is an error; ~2 stands for a
// literal * in a key ("/~2" is the key "*", "/a~2b" the key "a*b").
//
// Without Pattern the whole value at the path is redacted. With it, an
// RE2 expression, only its matches inside a string value are replaced by
// Replace, literal text ($ included); a nil Replace means DefaultReplace.
type Rule struct {
	Artifact string  `json:"artifact"`
	Path     string  `json:"path"`
	Pattern  string  `json:"pattern,omitempty"`
	Replace  *string `json:"replace,omitempty"`
}

// Whole is the rule that redacts the whole value at path in artifact.
func Whole(artifact, path string) Rule { return Rule{Artifact: artifact, Path: path} }

// Match is the rule that replaces the matches of pattern inside the
// string at path in artifact by replace.
func Match(artifact, path, pattern, replace string) Rule {
	return Rule{Artifact: artifact, Path: path, Pattern: pattern, Replace: &replace}
}

// String is the rule as one line of JSON.
func (r Rule) String() string {
	b, err := canon.Compact(r)
	if err != nil {
		return r.Artifact + " " + r.Path // not reached: a Rule always encodes
	}
	return string(b)
}

// RuleError is a rule that is not valid: the entry (from 0) and the field
// ("artifact", "path", "pattern", "replace"; empty for the entry as a
// whole). Its text, redact[2].pattern: …, is made to be quoted after the
// name of the file that holds the list.
type RuleError struct {
	Index int
	Field string
	Err   error
}

func (e *RuleError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("redact[%d]: %v", e.Index, e.Err)
	}
	return fmt.Sprintf("redact[%d].%s: %v", e.Index, e.Field, e.Err)
}

func (e *RuleError) Unwrap() error { return e.Err }

func ruleErr(i int, field, format string, args ...any) *RuleError {
	return &RuleError{Index: i, Field: field, Err: fmt.Errorf(format, args...)}
}

// Rules is a checked list of rules, ready to apply. The zero value holds
// no rule. A Rules is never changed once made, and is safe for concurrent
// use.
type Rules struct {
	list []*compiled
}

// compiled is a rule with its path and pattern parsed.
type compiled struct {
	Rule
	segs    []segment
	re      *regexp.Regexp
	replace string
}

// New checks rules as ParseRules checks a manifest's list (except that no
// rule at all is allowed: it is the zero Rules) and returns them ready to
// apply. It is how a Go environment declares the same list.
func New(rules ...Rule) (Rules, error) {
	if len(rules) > MaxRules {
		return Rules{}, fmt.Errorf("redact: %d rules, over the limit of %d", len(rules), MaxRules)
	}
	out := Rules{list: make([]*compiled, 0, len(rules))}
	seen := map[string]int{}
	for i, r := range rules {
		c, err := compile(i, r)
		if err != nil {
			return Rules{}, err
		}
		k := c.key()
		if j, dup := seen[k]; dup {
			return Rules{}, ruleErr(i, "", "is the same rule as redact[%d]; keep one", j)
		}
		seen[k] = i
		out.list = append(out.list, c)
	}
	if len(out.list) == 0 {
		out.list = nil
	}
	return out, nil
}

// compile checks rule i and parses its path and pattern; a rule whose
// reach checkReach refuses is an error of its path.
func compile(i int, r Rule) (*compiled, error) {
	c, err := compileAny(i, r)
	if err != nil {
		return nil, err
	}
	if err := checkReach(r.Artifact, c.segs); err != nil {
		return nil, &RuleError{Index: i, Field: "path", Err: err}
	}
	return c, nil
}

// compileAny is compile whatever the rule's reach.
func compileAny(i int, r Rule) (*compiled, error) {
	if !isArtifact(r.Artifact) {
		return nil, ruleErr(i, "artifact", "unknown artifact %s; name one of %s", quote(r.Artifact), knownArtifacts)
	}
	segs, err := parseSelector(r.Path)
	if err != nil {
		return nil, &RuleError{Index: i, Field: "path", Err: err}
	}
	c := &compiled{Rule: r, segs: segs}
	if r.Pattern == "" {
		if r.Replace != nil {
			return nil, ruleErr(i, "replace", "is given without a pattern; give a pattern whose matches it replaces, or leave replace out to redact the whole value")
		}
		return c, nil
	}
	if len(r.Pattern) > MaxPatternSize {
		return nil, ruleErr(i, "pattern", "is %d bytes long, over the limit of %d", len(r.Pattern), MaxPatternSize)
	}
	re, err := regexp.Compile(r.Pattern)
	if err != nil {
		return nil, ruleErr(i, "pattern", "does not compile as RE2: %v", oneLine(err.Error()))
	}
	if re.MatchString("") {
		return nil, ruleErr(i, "pattern", "%s matches the empty string, so it would insert the replace text between every character; make it match at least one character", quote(r.Pattern))
	}
	c.re, c.replace = re, DefaultReplace
	field := "pattern"
	if r.Replace != nil {
		c.replace, field = *r.Replace, "replace"
		if len(c.replace) > MaxReplaceSize {
			return nil, ruleErr(i, "replace", "is %d bytes long, over the limit of %d", len(c.replace), MaxReplaceSize)
		}
		if !utf8.ValidString(c.replace) {
			return nil, ruleErr(i, "replace", "is not valid UTF-8")
		}
	}
	if re.MatchString(c.replace) {
		return nil, ruleErr(i, field, "the replace text %s is matched by the pattern itself, so redacting twice would change it again; choose a replace text the pattern does not match", quote(c.replace))
	}
	return c, nil
}

// key is what makes two rules the same rule.
func (c *compiled) key() string {
	var b strings.Builder
	b.WriteString(c.Artifact)
	for _, s := range c.segs {
		b.WriteByte(0)
		b.WriteByte(byte('0' + s.kind))
		b.WriteString(s.text)
	}
	b.WriteByte(1)
	b.WriteString(c.Pattern)
	if c.re != nil {
		b.WriteByte(1)
		b.WriteString(c.replace)
	}
	return b.String()
}

// Len is how many rules there are.
func (r Rules) Len() int { return len(r.list) }

// Rule returns rule i, as it was given.
func (r Rules) Rule(i int) Rule { return r.list[i].Rule }

// List returns the rules as they were given, in their order.
func (r Rules) List() []Rule {
	out := make([]Rule, len(r.list))
	for i, c := range r.list {
		out[i] = c.Rule
	}
	return out
}

// Has reports whether some rule names artifact.
func (r Rules) Has(artifact string) bool {
	for _, c := range r.list {
		if c.Artifact == artifact {
			return true
		}
	}
	return false
}

// Name names rule i for a report line: redact[2] (calls /*/output/createdAt),
// with its pattern when it has one. A path or pattern holding characters a
// terminal would act on is quoted.
func (r Rules) Name(i int) string {
	if i < 0 || i >= len(r.list) {
		return fmt.Sprintf("redact[%d]", i)
	}
	c := r.list[i]
	s := fmt.Sprintf("redact[%d] (%s %s", i, c.Artifact, printable(c.Path))
	if c.re != nil {
		s += ", pattern " + quote(c.Pattern)
	}
	return s + ")"
}

// MarshalJSON writes the rules as the list a manifest holds.
func (r Rules) MarshalJSON() ([]byte, error) {
	if len(r.list) == 0 {
		return []byte("null"), nil
	}
	return canon.Compact(r.List())
}

// IsZero reports whether r holds no rule, for the omitzero option of a
// struct's field: a manifest without rules writes no "redact" key.
func (r Rules) IsZero() bool { return len(r.list) == 0 }

// UnmarshalJSON reads a manifest's list as ParseRules does; null is no
// rule at all, as an absent field is. It lets a manifest's struct hold a
// Rules field: `json:"redact,omitzero"`.
func (r *Rules) UnmarshalJSON(data []byte) error {
	if string(bytes.TrimSpace(data)) == "null" {
		*r = Rules{}
		return nil
	}
	rules, err := ParseRules(data)
	if err != nil {
		return err
	}
	*r = rules
	return nil
}

// ErrEmpty is the error of a "redact" list with no entry.
var ErrEmpty = errors.New(`redact: the list is empty; give at least one rule, or leave "redact" out`)

// quote writes s as a Go string literal, escaping what is not printable.
func quote(s string) string { return strconv.QuoteToGraphic(s) }

// printable returns s as it is when every character of it is a graphic
// one, and quoted otherwise.
func printable(s string) string {
	if !utf8.ValidString(s) {
		return quote(s)
	}
	for _, c := range s {
		if !unicode.IsGraphic(c) {
			return quote(s)
		}
	}
	return s
}

// oneLine keeps an error's text on one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
