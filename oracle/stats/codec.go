package stats

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/internal/canon"
	"github.com/agent-oracle/oracle/internal/safeio"
)

// FileSuffix ends the name of a distribution case's baseline:
// <TASK>.stats.json, next to the byte-for-byte cases' files.
const FileSuffix = ".stats.json"

// FileKind is the "kind" of a distribution file, FormatVersion its
// "formatVersion".
const (
	FileKind      = "distribution"
	FormatVersion = 1
)

// MaxFileBytes is the largest distribution file Parse reads: 4 MiB, far
// more than the counts of any real case take.
const MaxFileBytes = 4 << 20

// wire is a distribution file, keys in the order written; maps are written
// with their keys sorted.
type wire struct {
	Kind          string         `json:"kind"`
	FormatVersion int            `json:"formatVersion"`
	Runs          int            `json:"runs"`
	Verdicts      wireVerdicts   `json:"verdicts"`
	Terminations  map[string]int `json:"terminations"`
	Checks        []wireCheck    `json:"checks"`
	Violations    map[string]int `json:"violations"`
	Rewards       map[string]int `json:"rewards"`
}

type wireVerdicts struct {
	Error        int `json:"error"`
	Fail         int `json:"fail"`
	Inconclusive int `json:"inconclusive"`
	Pass         int `json:"pass"`
}

type wireCheck struct {
	Label  string `json:"label"`
	Kind   string `json:"kind"`
	Runs   int    `json:"runs"`
	Passed int    `json:"passed"`
}

// Marshal writes d as its file: 2-space indented JSON with a trailing
// newline, keys in a fixed order and map keys sorted, no timestamp; the same
// counts always give the same bytes. A distribution that does not Validate
// is an error and is not written.
func (d *Distribution) Marshal() ([]byte, error) {
	if err := d.Validate(); err != nil {
		return nil, fmt.Errorf("distribution: %w", err)
	}
	w := wire{
		Kind:          FileKind,
		FormatVersion: FormatVersion,
		Runs:          d.Runs,
		Verdicts:      wireVerdicts(d.Verdicts),
		Terminations:  nonNil(d.Terminations),
		Checks:        make([]wireCheck, len(d.Checks)),
		Violations:    nonNil(d.Violations),
		Rewards:       nonNil(d.Rewards),
	}
	checks := append([]CheckCount(nil), d.Checks...)
	sortChecks(checks)
	for i, c := range checks {
		w.Checks[i] = wireCheck{Label: c.Label, Kind: string(c.Kind), Runs: c.Runs, Passed: c.Passed}
	}
	return canon.Marshal(w)
}

func nonNil(m map[string]int) map[string]int {
	if m == nil {
		return map[string]int{}
	}
	return m
}

// Parse reads a distribution file strictly: every key must be there, spelt
// exactly, once; no other key; counts are whole numbers from 0 to MaxRuns;
// and the counts must hold together (Validate). The error says what is
// wrong and where. What Parse returns, Marshal writes back as the file it
// would have written for those counts.
func Parse(data []byte) (*Distribution, error) {
	d, err := parse(data)
	if err != nil {
		return nil, fmt.Errorf("distribution: %w", err)
	}
	return d, nil
}

func parse(data []byte) (*Distribution, error) {
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("%d bytes is over the limit of %d for a distribution file", len(data), MaxFileBytes)
	}
	if err := safeio.CheckLimits(data); err != nil {
		return nil, err
	}
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	top, err := fields(bytes.TrimLeft(data, " \t\r\n"), "the file")
	if err != nil {
		return nil, err
	}
	kind, ok := top["kind"]
	if !ok {
		return nil, errors.New(`the file has no "kind": "distribution"; it is not a distribution file`)
	}
	if s, err := str(kind, "kind"); err != nil {
		return nil, fmt.Errorf(`"kind" is %s, not "distribution"; it is not a distribution file`, typeOf(kind))
	} else if s != FileKind {
		return nil, fmt.Errorf(`"kind" is %s, not "distribution"; it is not a distribution file`, quoteShort(s))
	}
	if err := only(top, "the file", "kind", "formatVersion", "runs", "verdicts", "terminations", "checks", "violations", "rewards"); err != nil {
		return nil, err
	}
	version, err := count(top["formatVersion"], "formatVersion")
	if err != nil {
		return nil, err
	}
	if version != FormatVersion {
		return nil, fmt.Errorf("formatVersion is %d; this oracle reads version %d: update oracle or record the case again", version, FormatVersion)
	}
	d := &Distribution{}
	if d.Runs, err = count(top["runs"], "runs"); err != nil {
		return nil, err
	}
	verdicts, err := fields(top["verdicts"], "verdicts")
	if err == nil {
		err = only(verdicts, "verdicts", "error", "fail", "inconclusive", "pass")
	}
	if err != nil {
		return nil, err
	}
	for _, f := range []struct {
		name string
		to   *int
	}{{"error", &d.Verdicts.Error}, {"fail", &d.Verdicts.Fail}, {"inconclusive", &d.Verdicts.Inconclusive}, {"pass", &d.Verdicts.Pass}} {
		if *f.to, err = count(verdicts[f.name], "verdicts."+f.name); err != nil {
			return nil, err
		}
	}
	if d.Terminations, err = counts(top["terminations"], "terminations"); err != nil {
		return nil, err
	}
	if d.Violations, err = counts(top["violations"], "violations"); err != nil {
		return nil, err
	}
	if d.Rewards, err = counts(top["rewards"], "rewards"); err != nil {
		return nil, err
	}
	if d.Checks, err = checkCounts(top["checks"]); err != nil {
		return nil, err
	}
	if err := d.Validate(); err != nil {
		return nil, err
	}
	return d, nil
}

func checkCounts(raw json.RawMessage) ([]CheckCount, error) {
	if len(raw) == 0 || raw[0] != '[' {
		return nil, fmt.Errorf("checks is %s; it must be an array", typeOf(raw))
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("checks: %v", err)
	}
	out := make([]CheckCount, len(items))
	for i, item := range items {
		where := fmt.Sprintf("checks[%d]", i)
		f, err := fields(item, where)
		if err == nil {
			err = only(f, where, "label", "kind", "runs", "passed")
		}
		if err != nil {
			return nil, err
		}
		c := &out[i]
		if c.Label, err = str(f["label"], where+".label"); err != nil {
			return nil, err
		}
		kind, err := str(f["kind"], where+".kind")
		if err != nil {
			return nil, err
		}
		c.Kind = env.Kind(kind)
		if c.Runs, err = count(f["runs"], where+".runs"); err != nil {
			return nil, err
		}
		if c.Passed, err = count(f["passed"], where+".passed"); err != nil {
			return nil, err
		}
	}
	sortChecks(out)
	return out, nil
}

// fields reads the JSON object raw (already valid JSON) into its members,
// refusing a key given twice.
func fields(raw json.RawMessage, where string) (map[string]json.RawMessage, error) {
	if len(raw) == 0 || raw[0] != '{' {
		return nil, fmt.Errorf("%s is %s; it must be an object", where, typeOf(raw))
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("%s: %v", where, err)
	}
	out := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("%s: %v", where, err)
		}
		key, _ := tok.(string)
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, fmt.Errorf("%s: %v", where, err)
		}
		if _, dup := out[key]; dup {
			return nil, fmt.Errorf("%s gives %q twice; keep one", where, key)
		}
		out[key] = value
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("%s: %v", where, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%s: unexpected data after the object", where)
	}
	return out, nil
}

// only refuses a missing key and a key not in keys (keys match exactly,
// letter case included).
func only(f map[string]json.RawMessage, where string, keys ...string) error {
	for _, k := range keys {
		if _, ok := f[k]; !ok {
			return fmt.Errorf("%s has no %q", where, k)
		}
	}
	for _, k := range sortedKeys(f) {
		known := false
		for _, want := range keys {
			known = known || k == want
		}
		if !known {
			return fmt.Errorf("%s has the unknown key %q", where, k)
		}
	}
	return nil
}

// counts reads an object of counts.
func counts(raw json.RawMessage, where string) (map[string]int, error) {
	f, err := fields(raw, where)
	if err != nil {
		return nil, err
	}
	out := make(map[string]int, len(f))
	for _, k := range sortedKeys(f) {
		if out[k], err = count(f[k], fmt.Sprintf("%s[%q]", where, k)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// count reads a whole number from 0 to MaxRuns.
func count(raw json.RawMessage, where string) (int, error) {
	s := string(raw)
	if len(s) == 0 || (s[0] != '-' && (s[0] < '0' || s[0] > '9')) {
		return 0, fmt.Errorf("%s is %s; it must be a whole number", where, typeOf(raw))
	}
	if s[0] == '-' {
		return 0, fmt.Errorf("%s is negative (%s); counts are whole numbers from 0", where, s)
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("%s is %s, not a whole number", where, s)
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil || n > MaxRuns {
		return 0, fmt.Errorf("%s is %s, over the limit of %d", where, s, MaxRuns)
	}
	return n, nil
}

// str reads a string.
func str(raw json.RawMessage, where string) (string, error) {
	if len(raw) == 0 || raw[0] != '"' {
		return "", fmt.Errorf("%s is %s; it must be a string", where, typeOf(raw))
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("%s: %v", where, err)
	}
	return s, nil
}

// typeOf names the JSON type of raw for an error.
func typeOf(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "empty"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// quoteShort quotes s for an error, escaped, cut when long.
func quoteShort(s string) string {
	if r := []rune(s); len(r) > 40 {
		s = string(r[:40]) + "…"
	}
	return strconv.Quote(s)
}
