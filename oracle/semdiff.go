package oracle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/agent-oracle/oracle/internal/canon"
	"github.com/wI2L/jsondiff"
)

// FileDiff is the semantic difference of one artifact file between a frozen
// and a fresh version.
type FileDiff struct {
	File    string    `json:"file"`
	State   FileState `json:"state"`
	Changes []Change  `json:"changes,omitempty"`
	// Invisible names differences of bytes that do not change the JSON
	// value: a byte-order mark, CRLF line ends, the final newline, trailing
	// spaces, indentation, key order.
	Invisible []string `json:"invisible,omitempty"`
	Error     string   `json:"error,omitempty"`
}

// FileState says how a file differs between its frozen and fresh versions.
type FileState string

const (
	FileChanged    FileState = "changed"    // both exist and differ
	FileAdded      FileState = "added"      // no frozen file
	FileRemoved    FileState = "removed"    // no fresh file
	FileUnreadable FileState = "unreadable" // a version is not JSON; see FileDiff.Error
)

// ChangeOp is the RFC 6902 operation of a Change.
type ChangeOp string

const (
	ChangeAdd     ChangeOp = jsondiff.OperationAdd     // a value that was not there; To holds it
	ChangeRemove  ChangeOp = jsondiff.OperationRemove  // a value that is gone; From holds it
	ChangeReplace ChangeOp = jsondiff.OperationReplace // From became To
)

// Change is one RFC 6902 operation with the value before and after.
type Change struct {
	Op   ChangeOp        `json:"op"`
	Path string          `json:"path"`
	From json.RawMessage `json:"from,omitempty"`
	To   json.RawMessage `json:"to,omitempty"`
}

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
	patch, err := jsondiff.CompareJSON(a, b, jsondiff.UnmarshalFunc(unmarshalNumbers))
	if err != nil {
		d.State = FileUnreadable
		d.Error = err.Error()
		return d
	}
	for _, op := range patch {
		c := Change{Op: ChangeOp(op.Type), Path: op.Path}
		switch op.Type {
		case jsondiff.OperationReplace:
			c.From, c.To = rawOf(op.OldValue), rawOf(op.Value)
		case jsondiff.OperationRemove:
			c.From = rawOf(op.OldValue)
		case jsondiff.OperationAdd:
			c.To = rawOf(op.Value)
		}
		d.Changes = append(d.Changes, c)
	}
	d.Invisible = invisibleDifferences(old, fresh)
	if len(d.Changes) == 0 && len(d.Invisible) == 0 {
		d.Invisible = []string{orderOrSpacing(a, b)}
	}
	return d
}

// parseLoose strips what does not change a JSON value (a byte-order mark)
// and checks that the rest is JSON.
func parseLoose(data []byte) ([]byte, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	_, err := canon.Decode(data)
	return data, err
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

// invisibleDifferences names the byte-level properties that differ between
// two files and that a reader of the two texts would not see.
func invisibleDifferences(a, b []byte) []string {
	var out []string
	props := []struct {
		name string
		has  func([]byte) bool
	}{
		{"byte-order mark", func(d []byte) bool { return bytes.HasPrefix(d, []byte("\xef\xbb\xbf")) }},
		{"CRLF line ends", func(d []byte) bool { return bytes.Contains(d, []byte("\r\n")) }},
		{"final newline", func(d []byte) bool { return bytes.HasSuffix(d, []byte("\n")) }},
		{"trailing spaces", hasTrailingSpaces},
	}
	for _, p := range props {
		ha, hb := p.has(a), p.has(b)
		switch {
		case ha && !hb:
			out = append(out, p.name+" only in the old file")
		case !ha && hb:
			out = append(out, p.name+" only in the new file")
		}
	}
	return out
}

func hasTrailingSpaces(d []byte) bool {
	for _, line := range bytes.Split(d, []byte("\n")) {
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) > 0 && (line[len(line)-1] == ' ' || line[len(line)-1] == '\t') {
			return true
		}
	}
	return false
}

// orderOrSpacing explains two equal JSON values with different bytes and no
// other invisible difference: their keys are in another order, or they are
// spaced, indented or escaped differently.
func orderOrSpacing(a, b []byte) string {
	ta, errA := tokens(a)
	tb, errB := tokens(b)
	if errA == nil && errB == nil && !slices.Equal(ta, tb) {
		return "key order"
	}
	return "indentation, spacing or escaping"
}

// tokens lists a JSON text's tokens in order, strings decoded.
func tokens(data []byte) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var out []string
	for {
		t, err := dec.Token()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, fmt.Sprintf("%T:%v", t, t))
	}
}
