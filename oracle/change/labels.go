package change

import (
	"encoding/json"
	"strconv"
	"strings"
)

// labelChecks sets the label of the check each change under /checks/N is
// about: for a removed check the old file's check N, otherwise the new
// file's (or the old one's when the new file has no check N).
func labelChecks(changes []Change, old, fresh []byte) {
	var oldLabels, newLabels []string
	parsed := false
	for i, c := range changes {
		n, ok := checkIndex(c.Path)
		if !ok {
			continue
		}
		if !parsed {
			oldLabels, newLabels = checkLabels(old), checkLabels(fresh)
			parsed = true
		}
		first, second := newLabels, oldLabels
		if c.Op == ChangeRemove && strings.Count(c.Path, "/") == 2 {
			first, second = oldLabels, newLabels
		}
		switch {
		case n < len(first) && first[n] != "":
			changes[i].Label = first[n]
		case n < len(second):
			changes[i].Label = second[n]
		}
	}
}

// checkIndex reads N from a path /checks/N or /checks/N/….
func checkIndex(path string) (int, bool) {
	rest, ok := strings.CutPrefix(path, "/checks/")
	if !ok {
		return 0, false
	}
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		rest = rest[:i]
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil && n >= 0
}

// checkLabels lists the labels of a result.json's checks, "" where a check
// has none.
func checkLabels(result []byte) []string {
	var r struct {
		Checks []json.RawMessage `json:"checks"`
	}
	if json.Unmarshal(result, &r) != nil {
		return nil
	}
	out := make([]string, len(r.Checks))
	for i, raw := range r.Checks {
		var c struct {
			Label string `json:"label"`
		}
		if json.Unmarshal(raw, &c) == nil {
			out[i] = c.Label
		}
	}
	return out
}

// Label names a change that flips the verdict.
type Label string

const (
	LabelRegression  Label = "regression"  // pass → not pass
	LabelImprovement Label = "improvement" // not pass → pass
)
