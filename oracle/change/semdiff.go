package change

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agent-oracle/oracle/internal/canon"
	"github.com/wI2L/jsondiff"
)

// FileDiff is the semantic difference of one artifact file between a frozen
// and a fresh version: the model every report format renders.
type FileDiff struct {
	File  string    `json:"file"`
	State FileState `json:"state"`
	// Changes are RFC 6902 operations (arrays compared by their longest
	// common subsequence), with the values before and after.
	Changes []Change `json:"changes,omitempty"`
	// Members is the difference of a state-diff.json: its collection
	// members matched by id and their field changes by path, its scalars
	// by field. A state-diff.json that does not have that shape is
	// compared as Changes.
	Members []MemberDiff `json:"members,omitempty"`
	// Invisible names differences of bytes that do not change the JSON
	// value: a byte-order mark, CRLF line ends, the final newline, trailing
	// spaces, spacing, escaping, key order, duplicate keys.
	Invisible []Invisible `json:"invisible,omitempty"`
	// Redactions say how the environment's redaction rules take part in
	// the differences of a changed file (check only): a redacted value that
	// changed type, a rule added, removed or edited since the baseline was
	// recorded.
	Redactions []RedactionNote `json:"redactions,omitempty"`
	Error      string          `json:"error,omitempty"`
}

// FileState says how a file differs between its frozen and fresh versions.
type FileState string

const (
	FileChanged    FileState = "changed"    // both exist and differ
	FileAdded      FileState = "added"      // no frozen file
	FileRemoved    FileState = "removed"    // no fresh file
	FileUnreadable FileState = "unreadable" // a version is not JSON; see FileDiff.Error
	// FileMissing is a file the case freezes and its baseline lacks (an
	// artifact added since it was recorded): record adds it.
	FileMissing FileState = "missing"
)

// ChangeOp is the RFC 6902 operation of a Change.
type ChangeOp string

const (
	ChangeAdd     ChangeOp = jsondiff.OperationAdd     // a value that was not there; To holds it
	ChangeRemove  ChangeOp = jsondiff.OperationRemove  // a value that is gone; From holds it
	ChangeReplace ChangeOp = jsondiff.OperationReplace // From became To
)

// Change is one RFC 6902 operation with the value before and after. Path
// "" is the whole document.
type Change struct {
	Op   ChangeOp        `json:"op"`
	Path string          `json:"path"`
	From json.RawMessage `json:"from,omitempty"`
	To   json.RawMessage `json:"to,omitempty"`
	// Label is the label of the check a path under /checks/N is about.
	Label string `json:"label,omitempty"`
	// Words is the word-level diff of a replaced string.
	Words []Span `json:"words,omitempty"`
	// Call names the call and field a change of calls.json is about
	// ("#3 list_stalled_deals output /deals/0/daysInStage"); reports show
	// it in place of Path.
	Call string `json:"call,omitempty"`
	// Folded marks a change of result.json that the case's headline
	// already says: a field derived from the checks (passed, verdict,
	// reward, checksPassed, checksFailed, requiredPassed, requiredTotal,
	// failedRequired, violations) or the outcome or detail of a check its
	// Story lists. Reports list folded changes only on request.
	Folded bool `json:"folded,omitempty"`
}

// Location is where a report shows the change: its Call, or its Path.
func (c Change) Location() string {
	if c.Call != "" {
		return c.Call
	}
	return c.Path
}

// WholeDocument reports whether the change replaces the whole document.
func (c Change) WholeDocument() bool { return c.Path == "" }

// DiffFile compares two versions of an artifact; nil means the file is
// absent on that side. It returns nil when the bytes are equal.
func DiffFile(name string, old, fresh []byte) *FileDiff {
	switch {
	case old == nil && fresh == nil, old != nil && fresh != nil && bytes.Equal(old, fresh):
		return nil
	case old == nil:
		return &FileDiff{File: name, State: FileAdded}
	case fresh == nil:
		return &FileDiff{File: name, State: FileRemoved}
	}
	d := &FileDiff{File: name, State: FileChanged}
	a, errA := parseLoose(old)
	b, errB := parseLoose(fresh)
	if errA != nil || errB != nil {
		d.State = FileUnreadable
		if errA != nil {
			d.Error = fmt.Sprintf("old %s is not JSON: %v", name, errA)
		} else {
			d.Error = fmt.Sprintf("new %s is not JSON: %v", name, errB)
		}
		d.Invisible = invisibleDifferences(old, fresh)
		return d
	}
	members, ok := diffMembers(name, a, b)
	calls, isCalls := []Change(nil), false
	if !ok && isCallsFile(name) {
		calls, isCalls = diffCalls(a, b)
	}
	switch {
	case ok:
		d.Members = members
	case isCalls:
		d.Changes = calls // each replaced string with its words, as diffValues gives them
	default:
		changes, err := diffValues(a, b)
		if err != nil {
			d.State = FileUnreadable
			d.Error = err.Error()
			return d
		}
		d.Changes = changes
		labelChecks(d.Changes, a, b)
	}
	d.Invisible = invisibleDifferences(old, fresh)
	d.Invisible = append(d.Invisible, hiddenDifferences(a, b, len(d.Invisible) > 0)...)
	if ok {
		d.Invisible = append(d.Invisible, memberOrder(a, b)...)
	}
	if len(d.Changes) == 0 && len(d.Members) == 0 && len(d.Invisible) == 0 {
		d.Invisible = []Invisible{{Kind: "spacing", Detail: "indentation, spacing or escaping"}}
	}
	return d
}

// diffValues lists the RFC 6902 operations from a to b, arrays compared by
// their longest common subsequence, a replaced string with its word diff.
// A change of the whole document is one replace at path "".
func diffValues(a, b []byte) ([]Change, error) {
	patch, err := jsondiff.CompareJSON(a, b, jsondiff.UnmarshalFunc(unmarshalNumbers), jsondiff.LCS())
	if err != nil {
		return nil, err
	}
	var out []Change
	for _, op := range patch {
		c := Change{Op: ChangeOp(op.Type), Path: op.Path}
		if op.Path == "" {
			out = append(out, Change{Op: ChangeReplace, From: compactRaw(a), To: compactRaw(b)})
			continue
		}
		switch op.Type {
		case jsondiff.OperationReplace:
			c.From, c.To = rawOf(op.OldValue), rawOf(op.Value)
			c.Words = stringWords(c.From, c.To)
		case jsondiff.OperationRemove:
			c.From = rawOf(op.OldValue)
		case jsondiff.OperationAdd:
			c.To = rawOf(op.Value)
		}
		out = append(out, c)
	}
	return out, nil
}

// stringWords is the word diff of two JSON strings, nil when either is not
// a string or they share no word (old → new says it better then).
func stringWords(from, to json.RawMessage) []Span {
	var a, b string
	if json.Unmarshal(from, &a) != nil || json.Unmarshal(to, &b) != nil || a == b {
		return nil
	}
	return sharedWords(a, b)
}

// sharedWords is the word diff of two strings, nil when they share no word
// (old → new says it better then).
func sharedWords(a, b string) []Span {
	spans := WordDiff(a, b)
	for _, s := range spans {
		if s.Op == Same && strings.TrimSpace(s.Text) != "" {
			return spans
		}
	}
	return nil
}

func compactRaw(data []byte) json.RawMessage {
	v, err := canon.Decode(data)
	if err != nil {
		return json.RawMessage(data)
	}
	return rawOf(v)
}

// parseLoose strips what does not change a JSON value (a byte-order mark)
// and checks that the rest is JSON.
func parseLoose(data []byte) ([]byte, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	return data, checkJSON(data)
}

// checkJSON says whether data is one JSON value, with canon.Decode's error
// when it is not; valid data is scanned without being decoded (json.Valid
// accepts exactly what canon.Decode does: one value, its nesting within the
// same depth limit, white space around it).
func checkJSON(data []byte) error {
	if json.Valid(data) {
		return nil
	}
	_, err := canon.Decode(data)
	return err
}

func unmarshalNumbers(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(v)
}

func rawOf(v any) json.RawMessage {
	b, err := canon.Compact(v)
	if err != nil {
		return json.RawMessage(fmt.Sprintf("%q", fmt.Sprint(v)))
	}
	return b
}

// RedactionNote says how the redaction rules take part in the differences
// of one file between its baseline and the fresh run: a redacted value
// that changed type, or a rule added, removed or edited since the
// baseline was recorded, which makes the case changed and names the rule.
// Differences with the same note are one note: Count of them, at Pointers
// (the first few).
type RedactionNote struct {
	Cause string `json:"cause"`
	// Rules are the rules that take part, by index; Note names them.
	Rules    []int    `json:"rules,omitempty"`
	Note     string   `json:"note"`
	Count    int      `json:"count"`
	Pointers []string `json:"pointers"`
}
