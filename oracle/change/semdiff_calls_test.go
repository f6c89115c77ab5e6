package change

import (
	"testing"

	"github.com/agent-oracle/oracle/oracle/internal/artifacttest"
	"github.com/google/go-cmp/cmp"
)

func TestDiffCalls(t *testing.T) {
	base := []string{
		`list_users {} {"n":7}`,
		`get_deal {"id":"D-1"} {"amount":5}`,
		`list_stalled_deals {} {"deals":[{"id":"D-1","daysInStage":52}]}`,
		`update_deal {"id":"D-1","stage":"won"} {"ok":true}`,
	}
	with := func(i int, l string) []string {
		out := append([]string(nil), base...)
		out[i] = l
		return out
	}
	tests := []struct {
		name string
		old  []string
		new  []string
		want []string
	}{
		{"a read output changed", base, with(2, `list_stalled_deals {} {"deals":[{"id":"D-1","daysInStage":53}]}`),
			[]string{`replace /2/output/deals/0/daysInStage #3 list_stalled_deals output /deals/0/daysInStage 52 → 53`}},
		{"an extra call early shifts nothing into a change",
			base, append([]string{`get_deal {"id":"D-9"} {"amount":1}`}, base...),
			[]string{`add /0 #1 get_deal  → {"tool":"get_deal","input":{"id":"D-9"},"output":{"amount":1}}`}},
		{"a call gone",
			base, append(append([]string{}, base[:1]...), base[2:]...),
			[]string{`remove /1 old #2 get_deal {"tool":"get_deal","input":{"id":"D-1"},"output":{"amount":5}} → `}},
		{"an extra call early and a later output changed",
			base, append([]string{`list_users {} {"n":7}`}, with(2, `list_stalled_deals {} {"deals":[{"id":"D-1","daysInStage":53}]}`)...),
			[]string{
				`add /1 #2 list_users  → {"tool":"list_users","input":{},"output":{"n":7}}`,
				`replace /3/output/deals/0/daysInStage #4 (was #3) list_stalled_deals output /deals/0/daysInStage 52 → 53`,
			}},
		{"the input of a call changed", base, with(1, `get_deal {"id":"D-2"} {"amount":5}`),
			[]string{`replace /1/input/id #2 get_deal input /id "D-1" → "D-2"`}},
		{"an output became a tool error", base, with(3, `update_deal {"id":"D-1","stage":"won"} !invalid_state`),
			[]string{
				`add /3/error #4 update_deal error  → {"code":"invalid_state","message":"m"}`,
				`remove /3/output #4 update_deal output {"ok":true} → `,
			}},
		{"key order of an input is the same call", []string{`get_deal {"a":1,"b":2} {"x":1}`}, []string{`get_deal {"b":2,"a":1} {"x":2}`},
			[]string{`replace /0/output/x #1 get_deal output /x 1 → 2`}},
		{"calls of another tool are not paired",
			[]string{`get_deal {"id":"D-1"} {}`}, []string{`get_user {"id":"D-1"} {}`},
			[]string{
				`remove /0 old #1 get_deal {"tool":"get_deal","input":{"id":"D-1"},"output":{}} → `,
				`add /0 #1 get_user  → {"tool":"get_user","input":{"id":"D-1"},"output":{}}`,
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := DiffFile("calls.json", artifacttest.Calls(tt.old...), artifacttest.Calls(tt.new...))
			if d == nil {
				t.Fatal("no difference found")
			}
			var got []string
			for _, c := range d.Changes {
				got = append(got, string(c.Op)+" "+c.Path+" "+c.Location()+" "+string(c.From)+" → "+string(c.To))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("changes (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDiffCallsFallsBack: a calls.json that is not a list of calls (edited
// by hand) is diffed as plain JSON.
func TestDiffCallsFallsBack(t *testing.T) {
	d := DiffFile("calls.json", []byte(`{"a":1}`+"\n"), []byte(`{"a":2}`+"\n"))
	if d == nil || len(d.Changes) != 1 || d.Changes[0].Path != "/a" || d.Changes[0].Label != "" {
		t.Errorf("diff = %+v", d)
	}
	d = DiffFile("calls.json", []byte(`[{"tool":"a"}]`), []byte(`[1]`))
	if d == nil || len(d.Changes) != 1 || d.Changes[0].Path != "/0" {
		t.Errorf("diff = %+v", d)
	}
}

func FuzzDiffCalls(f *testing.F) {
	f.Add([]byte(`[{"tool":"a","input":{},"output":1}]`), []byte(`[{"tool":"a","input":{},"output":2},{"tool":"b","input":null,"error":{}}]`))
	f.Add([]byte(`[]`), []byte(`[{"tool":"x","input":{"k":[1,2]}}]`))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		changes, ok := diffCalls(a, b)
		if !ok {
			return
		}
		if string(a) == string(b) && len(changes) != 0 {
			t.Errorf("equal texts gave changes: %+v", changes)
		}
		same, _ := diffCalls(b, b)
		if len(same) != 0 {
			t.Errorf("a text against itself gave changes: %+v", same)
		}
	})
}
