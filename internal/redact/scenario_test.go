package redact

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agent-oracle/oracle/internal/canon"
)

// The scenario: an environment that wraps code it does not control. Its
// create_order tool stamps each order with a random id and the wall-clock
// time, and the agent and the verifier quote the id. Each rollout gives
// the three artifacts as the runner writes them.

type order struct {
	ID        string `json:"id"`
	Item      string `json:"item"`
	Qty       int    `json:"qty"`
	CreatedAt any    `json:"createdAt"`
}

type call struct {
	Tool   string         `json:"tool"`
	Input  map[string]any `json:"input"`
	Output order          `json:"output"`
}

type check struct {
	Label    string `json:"label"`
	Passed   bool   `json:"passed"`
	Detail   string `json:"detail"`
	Required bool   `json:"required"`
	Kind     string `json:"kind"`
}

type result struct {
	Passed      bool    `json:"passed"`
	Verdict     string  `json:"verdict"`
	Reward      float64 `json:"reward"`
	AgentOutput string  `json:"agentOutput"`
	Checks      []check `json:"checks"`
}

type added struct {
	ID    string `json:"id"`
	Value order  `json:"value"`
}

type stateDiff struct {
	Scalars     []any                     `json:"scalars"`
	Collections map[string]map[string]any `json:"collections"`
}

// rollout is one rollout's artifacts; change alters what the tool does,
// as a change to the environment's code would.
func rollout(t *testing.T, change func(*order)) map[string][]byte {
	t.Helper()
	var b [16]byte
	rand.Read(b[:])
	b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
	o := order{
		ID:        fmt.Sprintf("ord-%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:]),
		Item:      "widget",
		Qty:       2,
		CreatedAt: time.Now().UTC().Format(time.RFC3339Nano),
	}
	if change != nil {
		change(&o)
	}
	calls := []call{
		{Tool: "create_order", Input: map[string]any{"item": "widget", "qty": 2}, Output: o},
		{Tool: "get_order", Input: map[string]any{"id": o.ID}, Output: o},
	}
	res := result{Passed: true, Verdict: "pass", Reward: 1,
		AgentOutput: fmt.Sprintf("Created order %s at %s.", o.ID, o.CreatedAt),
		Checks:      []check{{Label: "An order for 2 widgets exists", Passed: true, Detail: fmt.Sprintf("order %s for %d %s", o.ID, o.Qty, o.Item), Required: true, Kind: "required"}},
	}
	diff := stateDiff{Scalars: []any{}, Collections: map[string]map[string]any{
		"orders": {"added": []added{{ID: o.ID, Value: o}}, "removed": []any{}, "changed": []any{}},
	}}
	out := map[string][]byte{}
	for name, v := range map[string]any{Calls: calls, Result: res, StateDiff: diff} {
		data, err := canon.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		out[name] = data
	}
	return out
}

// declaration is the environment's "redact" list, as its manifest says it.
const declaration = `[
  {"artifact": "calls", "path": "/*/output/id"},
  {"artifact": "calls", "path": "/*/input/id"},
  {"artifact": "calls", "path": "/*/output/createdAt"},
  {"artifact": "state-diff", "path": "/collections/orders/added/*/id"},
  {"artifact": "state-diff", "path": "/collections/orders/added/*/value/id"},
  {"artifact": "state-diff", "path": "/collections/orders/added/*/value/createdAt"},
  {"artifact": "result", "path": "/agentOutput", "pattern": "ord-[0-9a-f-]{36}", "replace": "ord-[id]"},
  {"artifact": "result", "path": "/agentOutput", "pattern": "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z", "replace": "[time]"},
  {"artifact": "result", "path": "/checks/*/detail", "pattern": "ord-[0-9a-f-]{36}", "replace": "ord-[id]"}
]`

var artifacts = []string{Result, StateDiff, Calls}

func parse(t *testing.T, s string) Rules {
	t.Helper()
	r, err := ParseRules([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestScenarioRandomIDAndClock(t *testing.T) {
	rules := parse(t, declaration)
	run1, run2 := rollout(t, nil), rollout(t, nil)

	// record: the two runs differ as written, agree once redacted, and
	// what is frozen holds the markers
	frozen := map[string][]byte{}
	for _, name := range artifacts {
		if bytes.Equal(run1[name], run2[name]) {
			t.Fatalf("%s: the two runs are the same bytes; the scenario needs a random id", name)
		}
		c, err := rules.Compare(name, run1[name], run2[name])
		if err != nil {
			t.Fatal(err)
		}
		if !c.Same || len(c.Differences) != 0 {
			t.Fatalf("%s: runs differ once redacted: %v", name, differencesOf(c.Differences))
		}
		if !bytes.Equal(c.Old.Data, c.New.Data) {
			t.Fatalf("%s: redacted runs are not byte-identical", name)
		}
		frozen[name] = c.New.Data
	}
	if s := string(frozen[Result]); !strings.Contains(s, `"agentOutput": "Created order ord-[id] at [time]."`) ||
		!strings.Contains(s, `"detail": "order ord-[id] for 2 widget"`) {
		t.Errorf("frozen result.json:\n%s", s)
	}
	if s := string(frozen[Calls]); strings.Count(s, `"[redacted: string]"`) != 5 {
		t.Errorf("frozen calls.json:\n%s", s)
	}

	// check: a third run is unchanged, and the report counts what the
	// redaction hid: 5 in calls.json, 3 in state-diff.json, 2 in
	// result.json (the answer, with two rules, is one value)
	run3 := rollout(t, nil)
	counts := map[string]int{}
	for _, name := range artifacts {
		c, err := rules.CompareBaseline(name, frozen[name], run3[name])
		if err != nil {
			t.Fatal(err)
		}
		if !c.Same {
			t.Fatalf("%s: a fresh run is changed: %v", name, differencesOf(c.Differences))
		}
		counts[name] = len(c.Hidden)
	}
	if want := map[string]int{Calls: 5, StateDiff: 3, Result: 2}; fmt.Sprint(counts) != fmt.Sprint(want) {
		t.Errorf("hidden %v, want %v", counts, want)
	}

	// a real change in a field no rule redacts is still caught
	bug := rollout(t, func(o *order) { o.Item = "gadget" })
	c, err := rules.CompareBaseline(Calls, frozen[Calls], bug[Calls])
	if err != nil {
		t.Fatal(err)
	}
	if c.Same || len(c.Differences) != 2 || c.Differences[0].Pointer != "/0/output/item" || c.Differences[0].Cause != CauseNone {
		t.Errorf("a changed item: same %v, %v", c.Same, differencesOf(c.Differences))
	}

	// a change of type in a redacted field is caught
	epoch := rollout(t, func(o *order) { o.CreatedAt = time.Now().Unix() })
	c, err = rules.CompareBaseline(Calls, frozen[Calls], epoch[Calls])
	if err != nil {
		t.Fatal(err)
	}
	if c.Same || len(c.Differences) != 2 || c.Differences[0].Cause != CauseTypeChanged ||
		rules.Explain(c.Differences[0]) != "a redacted value changed type, string → number (redact[2] (calls /*/output/createdAt))" {
		t.Errorf("createdAt as a number: same %v, %v", c.Same, differencesOf(c.Differences))
	}
	// and so is one that disappears
	gone := rollout(t, func(o *order) { o.CreatedAt = nil })
	c, _ = rules.CompareBaseline(Calls, frozen[Calls], gone[Calls])
	if c.Same {
		t.Errorf("createdAt null: unchanged")
	}

	// a selector with a typo selects nothing: a warning naming it
	typo := parse(t, strings.Replace(declaration, `"/*/output/createdAt"`, `"/*/outptu/createdAt"`, 1))
	tally := typo.Tally()
	for _, run := range []map[string][]byte{run1, run2, run3} {
		for _, name := range artifacts {
			res, err := typo.Apply(name, run[name])
			if err != nil {
				t.Fatal(err)
			}
			tally.Add(name, res)
		}
	}
	if w := tally.Warnings(); len(w) != 1 || w[0] != "redact[2] (calls /*/outptu/createdAt) selects nothing in the calls of 3 cases; fix the path or remove the rule" {
		t.Errorf("warnings %q", w)
	}

	// loosening a redaction is a change that names it
	loose := parse(t, strings.Replace(declaration, `  {"artifact": "calls", "path": "/*/output/createdAt"},`+"\n", "", 1))
	c, err = loose.CompareBaseline(Calls, frozen[Calls], run3[Calls])
	if err != nil {
		t.Fatal(err)
	}
	if c.Same || len(c.Differences) != 2 || c.Differences[0].Pointer != "/0/output/createdAt" || c.Differences[0].Cause != CauseRemoved {
		t.Errorf("a redaction removed: same %v, %v", c.Same, differencesOf(c.Differences))
	}
	// and tightening one is too
	tight := parse(t, strings.Replace(declaration, `{"artifact": "calls", "path": "/*/input/id"}`, `{"artifact": "calls", "path": "/*/input"}`, 1))
	c, _ = tight.CompareBaseline(Calls, frozen[Calls], run3[Calls])
	if c.Same || len(c.Differences) != 2 || c.Differences[0].Cause != CauseAdded || tight.Explain(c.Differences[0]) !=
		"redact[1] (calls /*/input) redacts a value the baseline holds as it was: a redaction added or widened since the baseline was recorded" {
		t.Errorf("a redaction widened: same %v, %v", c.Same, differencesOf(c.Differences))
	}
}

// Without a declaration, record's refusal proposes one; pasted into the
// manifest, it makes the runs agree, a third one included.
func TestScenarioProposal(t *testing.T) {
	var none Rules
	run1, run2, run3 := rollout(t, nil), rollout(t, nil), rollout(t, nil)
	var all []Rule
	for _, name := range artifacts {
		p, err := none.Propose(name, run1[name], run2[name])
		if err != nil {
			t.Fatal(err)
		}
		if !p.Stable || len(p.Rules) == 0 {
			t.Fatalf("%s: stable %v, rules %s", name, p.Stable, p.JSON)
		}
		pasted := parse(t, string(p.JSON))
		all = append(all, pasted.List()...)
	}
	rules := mustNew(t, all...)
	for _, name := range artifacts {
		c, err := rules.Compare(name, run1[name], run3[name])
		if err != nil {
			t.Fatal(err)
		}
		if !c.Same {
			t.Errorf("%s: the proposal does not hold for a third run: %v", name, differencesOf(c.Differences))
		}
	}
	var paths []string
	for _, r := range all {
		paths = append(paths, r.Artifact+" "+r.Path)
	}
	want := []string{
		"result /agentOutput", "result /agentOutput", "result /checks/*/detail",
		"state-diff /collections/orders/added/*/id", "state-diff /collections/orders/added/*/value/id", "state-diff /collections/orders/added/*/value/createdAt",
		"calls /*/output/id", "calls /*/output/createdAt", "calls /*/input/id",
	}
	if fmt.Sprint(paths) != fmt.Sprint(want) {
		t.Errorf("proposed\n%s\nwant\n%s", strings.Join(paths, "\n"), strings.Join(want, "\n"))
	}
}
