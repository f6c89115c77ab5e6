package change

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/agent-oracle/oracle/internal/artifact"
	"github.com/agent-oracle/oracle/internal/canon"
)

// maxCallCells bounds the table of the longest common subsequence of two
// call lists (after their common ends are trimmed); beyond it the calls are
// compared by position.
const maxCallCells = 4 << 20

// callEntry is one call of calls.json as the diff reads it.
type callEntry struct {
	raw  json.RawMessage
	tool string
	key  string // tool and canonical input: calls with equal keys are the same call
}

// diffCalls compares two calls.json texts as sequences of calls, so that a
// call added or removed shows as such and does not shift every later call
// into a change. Calls are matched by a longest common subsequence keyed by
// tool and input; calls left over between two matches are paired by tool in
// order; the fields of matched and paired calls are then compared. Every
// change is labelled with the call's number (1-based, in the new file; in
// the old file for a removed call) and tool:
// "#3 list_stalled_deals output /deals/0/daysInStage". ok is false when a
// text is not a list of call objects; the caller then diffs it as plain
// JSON.
func diffCalls(old, fresh []byte) (changes []Change, ok bool) {
	a, okA := parseCalls(old)
	b, okB := parseCalls(fresh)
	if !okA || !okB {
		return nil, false
	}
	for _, step := range alignCalls(a, b) {
		switch {
		case step.i >= 0 && step.j >= 0:
			ch, err := callFieldChanges(a[step.i], b[step.j], step.i, step.j)
			if err != nil {
				return nil, false
			}
			changes = append(changes, ch...)
		case step.j >= 0:
			changes = append(changes, Change{Op: ChangeAdd, Path: "/" + strconv.Itoa(step.j),
				To: compactCall(b[step.j].raw), Call: fmt.Sprintf("#%d %s", step.j+1, b[step.j].tool)})
		default:
			changes = append(changes, Change{Op: ChangeRemove, Path: "/" + strconv.Itoa(step.i),
				From: compactCall(a[step.i].raw), Call: fmt.Sprintf("old #%d %s", step.i+1, a[step.i].tool)})
		}
	}
	return changes, true
}

// parseCalls reads a calls.json text: a JSON array of objects with a tool.
func parseCalls(data []byte) ([]callEntry, bool) {
	var raws []json.RawMessage
	if json.Unmarshal(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), &raws) != nil {
		return nil, false
	}
	out := make([]callEntry, len(raws))
	for i, raw := range raws {
		var c struct {
			Tool  *string         `json:"tool"`
			Input json.RawMessage `json:"input"`
		}
		if json.Unmarshal(raw, &c) != nil || c.Tool == nil {
			return nil, false
		}
		input := []byte("null")
		if len(c.Input) > 0 {
			v, err := canon.Decode(c.Input)
			if err != nil {
				return nil, false
			}
			if input, err = canon.Compact(v); err != nil {
				return nil, false
			}
		}
		out[i] = callEntry{raw: raw, tool: *c.Tool, key: strconv.Quote(*c.Tool) + " " + string(input)}
	}
	return out, true
}

// step is one step of an alignment: a pair of matched calls (i and j set),
// a call only in the old list (j < 0) or only in the new one (i < 0).
type step struct{ i, j int }

// alignCalls aligns two call lists: the longest common subsequence by key,
// and between two of its matches, the old calls paired with the new calls of
// the same tool in order; what is left is removed or added.
func alignCalls(a, b []callEntry) []step {
	var out []step
	// common ends first: they are matched whatever the middle holds
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre].key == b[pre].key {
		out = append(out, step{pre, pre})
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf].key == b[len(b)-1-suf].key {
		suf++
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	var matches []step
	if len(ma)*len(mb) <= maxCallCells {
		matches = lcs(ma, mb)
	}
	ai, bj := 0, 0
	for _, m := range append(matches, step{len(ma), len(mb)}) {
		out = append(out, pairByTool(ma[ai:m.i], mb[bj:m.j], pre+ai, pre+bj)...)
		if m.i < len(ma) {
			out = append(out, step{pre + m.i, pre + m.j})
		}
		ai, bj = m.i+1, m.j+1
	}
	for k := 0; k < suf; k++ {
		out = append(out, step{len(a) - suf + k, len(b) - suf + k})
	}
	return out
}

// lcs returns the matched pairs of a longest common subsequence of a and b
// by key, in order.
func lcs(a, b []callEntry) []step {
	n, m := len(a), len(b)
	// t[i][j] is the length of an LCS of a[i:] and b[j:]
	t := make([][]int32, n+1)
	for i := range t {
		t[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i].key == b[j].key {
				t[i][j] = t[i+1][j+1] + 1
			} else {
				t[i][j] = max(t[i+1][j], t[i][j+1])
			}
		}
	}
	var out []step
	for i, j := 0, 0; i < n && j < m; {
		switch {
		case a[i].key == b[j].key:
			out = append(out, step{i, j})
			i++
			j++
		case t[i+1][j] >= t[i][j+1]:
			i++
		default:
			j++
		}
	}
	return out
}

// pairByTool aligns a run of unmatched old calls with a run of unmatched
// new ones: each old call is paired with the next new call of the same
// tool (a call whose input or output changed); calls without a partner are
// removed or added. offA and offB are the runs' positions in their lists.
func pairByTool(a, b []callEntry, offA, offB int) []step {
	var out []step
	j := 0
	for i := range a {
		k := j
		for k < len(b) && b[k].tool != a[i].tool {
			k++
		}
		if k == len(b) {
			out = append(out, step{offA + i, -1})
			continue
		}
		for ; j < k; j++ {
			out = append(out, step{-1, offB + j})
		}
		out = append(out, step{offA + i, offB + k})
		j = k + 1
	}
	for ; j < len(b); j++ {
		out = append(out, step{-1, offB + j})
	}
	return out
}

// callFieldChanges compares two versions of one call field by field.
func callFieldChanges(a, b callEntry, i, j int) ([]Change, error) {
	changes, err := diffValues(a.raw, b.raw)
	if err != nil {
		return nil, err
	}
	call := fmt.Sprintf("#%d %s", j+1, b.tool)
	if i != j {
		call = fmt.Sprintf("#%d (was #%d) %s", j+1, i+1, b.tool)
	}
	for k, c := range changes {
		changes[k].Path = "/" + strconv.Itoa(j) + c.Path
		changes[k].Call = call + " " + fieldLabel(c.Path)
	}
	return changes, nil
}

// fieldLabel turns a pointer into a call ("/output/deals/0/daysInStage")
// into the field and the pointer inside it ("output /deals/0/daysInStage").
func fieldLabel(p string) string {
	field, rest, _ := strings.Cut(strings.TrimPrefix(p, "/"), "/")
	field = strings.NewReplacer("~1", "/", "~0", "~").Replace(field)
	if rest == "" {
		return field
	}
	return field + " /" + rest
}

// isCallsFile reports whether name is a calls.json, in a run folder or a
// baseline (<TASK>.calls.json).
func isCallsFile(name string) bool {
	a, ok := artifact.Of(name)
	return ok && a.Diff == artifact.DiffCalls
}

// compactCall is a call on one line, its keys in their order (tool first).
func compactCall(raw json.RawMessage) json.RawMessage {
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return raw
	}
	return buf.Bytes()
}
