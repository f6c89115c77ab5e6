package change

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agent-oracle/oracle/oracle/internal/artifacttest"
	"github.com/google/go-cmp/cmp"
)

// entries makes call entries from "tool" or "tool:input" names; calls with
// the same name are the same call (tool and input).
func entries(names ...string) []callEntry {
	out := make([]callEntry, len(names))
	for i, n := range names {
		tool, _, _ := strings.Cut(n, ":")
		out[i] = callEntry{tool: tool, key: n}
	}
	return out
}

// steps writes an alignment as "i-j" pairs, "i-" for an old call only and
// "-j" for a new one, 0-based.
func steps(st []step) string {
	var parts []string
	for _, s := range st {
		switch {
		case s.i >= 0 && s.j >= 0:
			parts = append(parts, fmt.Sprintf("%d-%d", s.i, s.j))
		case s.i >= 0:
			parts = append(parts, fmt.Sprintf("%d-", s.i))
		default:
			parts = append(parts, fmt.Sprintf("-%d", s.j))
		}
	}
	return strings.Join(parts, " ")
}

// TestAlignCalls pins the alignment of two call lists in each of its
// branches: the common ends, the longest common subsequence of the middle
// (its ties broken toward the old list's later calls), the calls between
// two matches paired by tool in order, and what is left added or removed.
func TestAlignCalls(t *testing.T) {
	tests := []struct {
		name     string
		old, new []string
		want     string
	}{
		{"both empty", nil, nil, ""},
		{"old empty", nil, []string{"a", "b"}, "-0 -1"},
		{"new empty", []string{"a", "b"}, nil, "0- 1-"},
		{"the same", []string{"a", "b", "c"}, []string{"a", "b", "c"}, "0-0 1-1 2-2"},
		{"one call gone at the end", []string{"a", "b"}, []string{"a"}, "0-0 1-"},
		{"one call added at the end", []string{"a"}, []string{"a", "b"}, "0-0 -1"},
		{"one call gone at the start", []string{"a", "b"}, []string{"b"}, "0- 1-0"},
		{"a call inserted early", []string{"a", "b", "c"}, []string{"x", "a", "b", "c"}, "-0 0-1 1-2 2-3"},
		{"a call removed from the middle", []string{"a", "b", "c"}, []string{"a", "c"}, "0-0 1- 2-1"},
		{"a call that moved to the end", []string{"m", "a", "b"}, []string{"a", "b", "m"}, "0- 1-0 2-1 -2"},
		{"a call that moved to the start", []string{"a", "b", "m"}, []string{"m", "a", "b"}, "-0 0-1 1-2 2-"},
		// the middle, between common ends, is aligned by its LCS
		{"matches inside the middle", []string{"s", "x", "a", "y", "b", "z", "e"}, []string{"s", "a", "w", "b", "v", "e"},
			"0-0 1- 2-1 3- -2 4-3 5- -4 6-5"},
		{"the longer subsequence wins", []string{"a", "b", "c", "d", "q"}, []string{"q", "b", "c", "d", "a"},
			"0- -0 1-1 2-2 3-3 4- -4"},
		{"a tie keeps the old list's later call", []string{"a", "b"}, []string{"b", "a"}, "0- 1-0 -1"},
		{"a tie among three", []string{"a", "b", "c"}, []string{"c", "b", "a"}, "0- 1- 2-0 -1 -2"},
		{"repeated calls match in order", []string{"r", "r", "x"}, []string{"x", "r", "r"}, "-0 0-1 1-2 2-"},
		// calls left between matches are paired by tool, in order
		{"an input changed", []string{"get:1", "put:1"}, []string{"get:2", "put:1"}, "0-0 1-1"},
		{"inputs changed around a match", []string{"get:1", "k", "get:3"}, []string{"get:2", "k", "get:4"}, "0-0 1-1 2-2"},
		{"a new call of another tool before the pair", []string{"get:1"}, []string{"put:9", "get:2"}, "-0 0-1"},
		{"an old call of another tool before the pair", []string{"put:9", "get:1"}, []string{"get:2"}, "0- 1-0"},
		{"each old call pairs with the next new one of its tool", []string{"get:1", "get:2"}, []string{"put:1", "get:3", "get:4", "get:5"},
			"-0 0-1 1-2 -3"},
		{"an old call with no partner, then one with", []string{"del:1", "get:1"}, []string{"get:2", "put:1"}, "0- 1-0 -1"},
		{"two tools crossed", []string{"get:1", "put:1"}, []string{"put:2", "get:2"}, "-0 0-1 1-"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := steps(alignCalls(entries(tt.old...), entries(tt.new...)))
			if got != tt.want {
				t.Errorf("alignCalls(%v, %v) = %q, want %q", tt.old, tt.new, got, tt.want)
			}
		})
	}
}

// TestLCS pins the longest common subsequence itself, without the common
// ends that alignCalls trims first.
func TestLCS(t *testing.T) {
	tests := []struct {
		old, new []string
		want     string
	}{
		{nil, []string{"a"}, ""},
		{[]string{"a"}, []string{"b"}, ""},
		{[]string{"a"}, []string{"a"}, "0-0"},
		{[]string{"x", "a", "y"}, []string{"a"}, "1-0"},
		{[]string{"a"}, []string{"x", "y", "a"}, "0-2"},
		{[]string{"a", "b", "c"}, []string{"c", "a", "b"}, "0-1 1-2"},
		{[]string{"b", "a", "c", "b", "d"}, []string{"a", "b", "c", "d"}, "1-0 3-1 4-3"},
		{[]string{"a", "b"}, []string{"b", "a"}, "1-0"},
		{[]string{"c", "c"}, []string{"a", "c"}, "1-1"},
		{[]string{"a", "c", "a"}, []string{"b", "a"}, "2-1"},
		{[]string{"p", "q", "p", "q"}, []string{"q", "p", "q", "p"}, "1-0 2-1 3-2"},
	}
	for _, tt := range tests {
		if got := steps(lcs(entries(tt.old...), entries(tt.new...))); got != tt.want {
			t.Errorf("lcs(%v, %v) = %q, want %q", tt.old, tt.new, got, tt.want)
		}
	}
}

// TestDiffCallsLabels: every change of calls.json is named by the call's
// number and tool, in the new file (the old one for a removed call), with
// "(was #N)" for a matched call that moved; values are compact whatever
// the file's indentation; a file that is not a list of calls is diffed as
// plain JSON.
func TestDiffCallsLabels(t *testing.T) {
	indented := func(lines ...string) []byte {
		return []byte(strings.ReplaceAll(strings.ReplaceAll(string(artifacttest.Calls(lines...)), `{"tool"`, "{\n    \"tool\""), `,"`, ",\n    \""))
	}
	tests := []struct {
		name       string
		old, fresh []byte
		want       []string
	}{
		{"a moved call keeps its match", artifacttest.Calls(`a {} 1`, `b {} 2`, `c {} 3`), artifacttest.Calls(`b {} 2`, `c {} 4`, `a {} 1`),
			[]string{
				`remove /0 old #1 a {"tool":"a","input":{},"output":1}`,
				`replace /1/output #2 (was #3) c output 3 → 4`,
				`add /2 #3 a {"tool":"a","input":{},"output":1}`,
			}},
		{"an indented file shows compact calls", indented(`a {} 1`), indented(`a {} 1`, `b {"k":[1,2]} {"v":"x y"}`),
			[]string{`add /1 #2 b {"tool":"b","input":{"k":[1,2]},"output":{"v":"x y"}}`}},
		{"an indented removed call", indented(`a {} 1`, `b {} 2`), indented(`b {} 2`),
			[]string{`remove /0 old #1 a {"tool":"a","input":{},"output":1}`}},
		{"a call without input is the call with input null", []byte(`[{"tool":"a","output":1}]`), []byte(`[{"tool":"a","input":null,"output":2}]`),
			[]string{`add /0/input #1 a input null`, `replace /0/output #1 a output 1 → 2`}},
		{"the input tells calls of one tool apart", artifacttest.Calls(`get {"id":1} 1`, `get {"id":2} 2`), artifacttest.Calls(`get {"id":2} 2`),
			[]string{`remove /0 old #1 get {"tool":"get","input":{"id":1},"output":1}`}},
		{"an escaped field name", []byte(`[{"tool":"a","o/k":1}]`), []byte(`[{"tool":"a","o/k":2}]`),
			[]string{`replace /0/o~1k #1 a o/k 1 → 2`}},
		{"a field inside a field", artifacttest.Calls(`a {} {"x":{"y":1}}`), artifacttest.Calls(`a {} {"x":{"y":2}}`),
			[]string{`replace /0/output/x/y #1 a output /x/y 1 → 2`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := DiffFile("TASK-001.calls.json", tt.old, tt.fresh)
			if d == nil {
				t.Fatal("no difference found")
			}
			var got []string
			for _, c := range d.Changes {
				v := string(c.To)
				if c.Op == ChangeRemove {
					v = string(c.From)
				}
				if c.Op == ChangeReplace {
					v = string(c.From) + " → " + string(c.To)
				}
				got = append(got, string(c.Op)+" "+c.Path+" "+c.Call+" "+v)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("changes (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDiffCallsNotCalls: a side that is not a list of call objects (not an
// array, an element that is not an object or has no tool) makes the whole
// file a plain JSON diff: no change is named by a call.
func TestDiffCallsNotCalls(t *testing.T) {
	good := artifacttest.Calls(`a {} 1`)
	for _, tt := range []struct {
		name       string
		old, fresh []byte
	}{
		{"new side an object", good, []byte(`{"tool":"a"}`)},
		{"old side an object", []byte(`{"tool":"a"}`), good},
		{"an element without a tool", good, []byte(`[{"tool":"a","input":{},"output":1},{"input":{}}]`)},
		{"an element that is not an object", []byte(`[1]`), good},
		{"a tool that is not a string", good, []byte(`[{"tool":7,"input":{},"output":1}]`)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := DiffFile("calls.json", tt.old, tt.fresh)
			if d == nil || d.State != FileChanged || len(d.Changes) == 0 {
				t.Fatalf("diff = %+v", d)
			}
			for _, c := range d.Changes {
				if c.Call != "" {
					t.Errorf("change %s %s is named by call %q in a file that is not a list of calls", c.Op, c.Path, c.Call)
				}
			}
		})
	}
	// and a list of calls under another name is plain JSON too
	d := DiffFile("result.json", artifacttest.Calls(`a {} 1`), artifacttest.Calls(`a {} 2`))
	if d == nil || len(d.Changes) != 1 || d.Changes[0].Call != "" || d.Changes[0].Path != "/0/output" {
		t.Errorf("result.json holding a list of calls: %+v", d)
	}
	for _, name := range []string{"calls.json", "TASK-001.calls.json"} {
		if !isCallsFile(name) {
			t.Errorf("isCallsFile(%q) = false", name)
		}
	}
	for _, name := range []string{"xcalls.json", "calls.json.bak", "result.json"} {
		if isCallsFile(name) {
			t.Errorf("isCallsFile(%q) = true", name)
		}
	}
}

// TestDiffCallsWords: a replaced string inside a call carries its word
// diff, as in any other file; a replaced number none.
func TestDiffCallsWords(t *testing.T) {
	d := DiffFile("calls.json", artifacttest.Calls(`a {} {"s":"due on Monday","n":1}`), artifacttest.Calls(`a {} {"s":"due on Tuesday","n":2}`))
	if d == nil || len(d.Changes) != 2 {
		t.Fatalf("diff = %+v", d)
	}
	n, s := d.Changes[0], d.Changes[1]
	want := []Span{{Op: Same, Text: "due on "}, {Op: Deleted, Text: "Monday"}, {Op: Inserted, Text: "Tuesday"}}
	if n.Words != nil || !cmp.Equal(s.Words, want) {
		t.Errorf("words of %s: %+v; of %s: %+v", n.Call, n.Words, s.Call, s.Words)
	}
}

// TestAlignCallsLimit: up to maxCallCells cells of the middle's table
// (after the common ends) the calls are aligned by their LCS; beyond, by
// tool in order, so a huge list costs no huge table.
func TestAlignCallsLimit(t *testing.T) {
	// old: a, k0 … kn-1; new: k0 … km-1, b: no common end, the k's shared
	lists := func(n, m int) ([]callEntry, []callEntry) {
		old := []string{"t:a"}
		for i := range n {
			old = append(old, fmt.Sprintf("t:k%d", i))
		}
		var fresh []string
		for i := range m {
			fresh = append(fresh, fmt.Sprintf("t:k%d", i))
		}
		return entries(old...), entries(append(fresh, "t:b")...)
	}
	oneSided := func(st []step) int {
		n := 0
		for _, s := range st {
			if s.i < 0 || s.j < 0 {
				n++
			}
		}
		return n
	}
	side := 1 << 11 // side × side = maxCallCells
	if side*side != maxCallCells {
		t.Fatalf("maxCallCells is %d, not %d²", maxCallCells, side)
	}
	// at the limit: the LCS matches the k's, a is removed and b added
	a, b := lists(side-1, side-1)
	if got := oneSided(alignCalls(a, b)); got != 2 {
		t.Errorf("%d×%d cells: %d calls on one side, want 2 (the LCS)", len(a), len(b), got)
	}
	// one call more: paired by tool in order, k0 (old #2) with new #2
	a, b = lists(side, side-1)
	st := alignCalls(a, b)
	if got := oneSided(st); got != 1 || st[1] != (step{1, 1}) {
		t.Errorf("%d×%d cells: %d calls on one side, old #2 as %v; want 1, paired in order with new #2", len(a), len(b), got, st[1])
	}
}
