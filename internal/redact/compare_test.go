package redact

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// hidden and difference are Hidden and Difference written compactly for
// a table.
type hidden struct{ Pointer, Old, New, Value string }

type difference struct {
	Pointer, Old, New string
	Cause             Cause
	Rules             []int
}

func hiddenOf(hs []Hidden) []hidden {
	var out []hidden
	for _, h := range hs {
		out = append(out, hidden{h.Pointer, string(h.Old), string(h.New), string(h.Value)})
	}
	return out
}

func differencesOf(ds []Difference) []difference {
	var out []difference
	for _, d := range ds {
		out = append(out, difference{d.Pointer, string(d.Old), string(d.New), d.Cause, d.Rules})
	}
	return out
}

// checkComparison compares what a Comparison says with a table's entry.
func checkComparison(t *testing.T, c Comparison, same bool, hidden []hidden, different []difference) {
	t.Helper()
	if c.Same != same {
		t.Errorf("Same = %v", c.Same)
	}
	if diff := cmp.Diff(hidden, hiddenOf(c.Hidden)); diff != "" {
		t.Errorf("hidden (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(different, differencesOf(c.Differences)); diff != "" {
		t.Errorf("differences (-want +got):\n%s", diff)
	}
}

var volatile = []Rule{
	Whole(Calls, "/*/output/id"),
	Match(Calls, "/*/output/note", `[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z`, "[time]"),
}

func TestCompare(t *testing.T) {
	tests := []struct {
		name      string
		old, new  string
		same      bool
		hidden    []hidden
		different []difference
	}{
		{
			name: "only redacted places differ",
			old:  `[{"tool":"t","output":{"id":"a1","note":"at 2026-04-13T09:00:00Z","n":1}},{"tool":"t","output":{"id":"a2","note":"fine","n":2}}]`,
			new:  `[{"tool":"t","output":{"id":"b1","note":"at 2026-04-13T09:00:07.5Z","n":1}},{"tool":"t","output":{"id":"b2","note":"fine","n":2}}]`,
			same: true,
			hidden: []hidden{
				{"/0/output/id", `"a1"`, `"b1"`, `"[redacted: string]"`},
				{"/0/output/note", `"at 2026-04-13T09:00:00Z"`, `"at 2026-04-13T09:00:07.5Z"`, `"at [time]"`},
				{"/1/output/id", `"a2"`, `"b2"`, `"[redacted: string]"`},
			},
		},
		{
			name: "the same raw values hide nothing",
			old:  `[{"tool":"t","output":{"id":"a1"}}]`,
			new:  `[{"tool":"t","output":{"id":"a1"}}]`,
			same: true,
		},
		{
			name:      "a change outside",
			old:       `[{"tool":"t","output":{"id":"a1","n":1}}]`,
			new:       `[{"tool":"t","output":{"id":"b1","n":2}}]`,
			hidden:    []hidden{{"/0/output/id", `"a1"`, `"b1"`, `"[redacted: string]"`}},
			different: []difference{{Pointer: "/0/output/n", Old: "1", New: "2"}},
		},
		{
			name:      "a redacted field that changes type",
			old:       `[{"tool":"t","output":{"id":"a1"}}]`,
			new:       `[{"tool":"t","output":{"id":17}}]`,
			different: []difference{{"/0/output/id", `"[redacted: string]"`, `"[redacted: number]"`, CauseTypeChanged, []int{0}}},
		},
		{
			name:      "a redacted field that disappears",
			old:       `[{"tool":"t","output":{"id":"a1","n":1}}]`,
			new:       `[{"tool":"t","output":{"n":1}}]`,
			different: []difference{{"/0/output/id", `"[redacted: string]"`, "", CauseRedacted, []int{0}}},
		},
		{
			name:      "text around a pattern's match",
			old:       `[{"tool":"t","output":{"note":"at 2026-04-13T09:00:00Z"}}]`,
			new:       `[{"tool":"t","output":{"note":"by 2026-04-13T09:00:00Z"}}]`,
			different: []difference{{"/0/output/note", `"at [time]"`, `"by [time]"`, CauseRedacted, []int{1}}},
		},
		{
			name:      "an element more",
			old:       `[{"tool":"t","output":{"id":"a1"}}]`,
			new:       `[{"tool":"t","output":{"id":"b1"}},{"tool":"u"}]`,
			hidden:    []hidden{{"/0/output/id", `"a1"`, `"b1"`, `"[redacted: string]"`}},
			different: []difference{{Pointer: "/1", New: `{"tool":"u"}`}},
		},
		{
			name:      "the same members in another order",
			old:       `[{"tool":"t","output":{"n":1,"m":2}}]`,
			new:       `[{"tool":"t","output":{"m":2,"n":1}}]`,
			different: []difference{{Pointer: "/0/output", Old: `{"n":1,"m":2}`, New: `{"m":2,"n":1}`}},
		},
	}
	r := mustNew(t, volatile...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := r.Compare(Calls, artifactJSON(t, tt.old), artifactJSON(t, tt.new))
			if err != nil {
				t.Fatal(err)
			}
			checkComparison(t, c, tt.same, tt.hidden, tt.different)
		})
	}
}

func TestCompareBaseline(t *testing.T) {
	raw := `[{"tool":"t","output":{"id":"a1","note":"at 2026-04-13T09:00:00Z","n":1}}]`
	r := mustNew(t, volatile...)
	recorded, err := r.Apply(Calls, artifactJSON(t, raw))
	if err != nil {
		t.Fatal(err)
	}
	frozen := recorded.Data
	tests := []struct {
		name      string
		rules     []Rule
		frozen    []byte
		fresh     string
		same      bool
		hidden    []hidden
		different []difference
		explain   []string
	}{
		{
			name:   "a fresh run that differs in its volatile fields",
			rules:  volatile,
			frozen: frozen,
			fresh:  `[{"tool":"t","output":{"id":"b7","note":"at 2026-05-01T10:11:12Z","n":1}}]`,
			same:   true,
			hidden: []hidden{
				{"/0/output/id", `"[redacted: string]"`, `"b7"`, `"[redacted: string]"`},
				{"/0/output/note", `"at [time]"`, `"at 2026-05-01T10:11:12Z"`, `"at [time]"`},
			},
		},
		{
			name:      "a real change beside them",
			rules:     volatile,
			frozen:    frozen,
			fresh:     `[{"tool":"t","output":{"id":"b7","note":"at 2026-05-01T10:11:12Z","n":2}}]`,
			hidden:    []hidden{{"/0/output/id", `"[redacted: string]"`, `"b7"`, `"[redacted: string]"`}, {"/0/output/note", `"at [time]"`, `"at 2026-05-01T10:11:12Z"`, `"at [time]"`}},
			different: []difference{{Pointer: "/0/output/n", Old: "1", New: "2"}},
			explain:   []string{""},
		},
		{
			name:      "a redacted field that changed type",
			rules:     volatile,
			frozen:    frozen,
			fresh:     `[{"tool":"t","output":{"id":7,"note":"at 2026-05-01T10:11:12Z","n":1}}]`,
			hidden:    []hidden{{"/0/output/note", `"at [time]"`, `"at 2026-05-01T10:11:12Z"`, `"at [time]"`}},
			different: []difference{{"/0/output/id", `"[redacted: string]"`, `"[redacted: number]"`, CauseTypeChanged, []int{0}}},
			explain:   []string{"a redacted value changed type, string → number (redact[0] (calls /*/output/id))"},
		},
		{
			name:      "a rule added since the baseline",
			rules:     append(append([]Rule{}, volatile...), Whole(Calls, "/*/output/n")),
			frozen:    frozen,
			fresh:     raw,
			hidden:    []hidden{{"/0/output/id", `"[redacted: string]"`, `"a1"`, `"[redacted: string]"`}, {"/0/output/note", `"at [time]"`, `"at 2026-04-13T09:00:00Z"`, `"at [time]"`}},
			different: []difference{{"/0/output/n", "1", `"[redacted: number]"`, CauseAdded, []int{2}}},
			explain:   []string{"redact[2] (calls /*/output/n) redacts a value the baseline holds as it was: a redaction added or widened since the baseline was recorded"},
		},
		{
			name:      "a rule removed since the baseline",
			rules:     volatile[1:],
			frozen:    frozen,
			fresh:     raw,
			hidden:    []hidden{{"/0/output/note", `"at [time]"`, `"at 2026-04-13T09:00:00Z"`, `"at [time]"`}},
			different: []difference{{Pointer: "/0/output/id", Old: `"[redacted: string]"`, New: `"a1"`, Cause: CauseRemoved}},
			explain:   []string{"the baseline holds a redaction marker that no rule makes now: a redaction removed or narrowed since the baseline was recorded"},
		},
		{
			name:      "a pattern rule widened since the baseline",
			rules:     []Rule{volatile[0], Match(Calls, "/**/note", `[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z`, "[time]")},
			frozen:    artifactJSON(t, `[{"tool":"t","output":{"id":"[redacted: string]","note":"at [time]"},"input":{"note":"2026-01-01T00:00:00Z"}}]`),
			fresh:     `[{"tool":"t","output":{"id":"a1","note":"at 2026-04-13T09:00:00Z"},"input":{"note":"2026-01-01T00:00:00Z"}}]`,
			hidden:    []hidden{{"/0/output/id", `"[redacted: string]"`, `"a1"`, `"[redacted: string]"`}, {"/0/output/note", `"at [time]"`, `"at 2026-04-13T09:00:00Z"`, `"at [time]"`}},
			different: []difference{{"/0/input/note", `"2026-01-01T00:00:00Z"`, `"[time]"`, CauseAdded, []int{1}}},
			explain:   []string{`redact[1] (calls /**/note, pattern "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z") redacts a value the baseline holds as it was: a redaction added or widened since the baseline was recorded`},
		},
		{
			name:      "a replace text edited since the baseline",
			rules:     []Rule{volatile[0], Match(Calls, "/*/output/note", `[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z`, "[timestamp]")},
			frozen:    frozen,
			fresh:     raw,
			hidden:    []hidden{{"/0/output/id", `"[redacted: string]"`, `"a1"`, `"[redacted: string]"`}},
			different: []difference{{"/0/output/note", `"at [time]"`, `"at [timestamp]"`, CauseRedacted, []int{1}}},
			explain:   []string{`at a value redact[1] (calls /*/output/note, pattern "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z") rewrites`},
		},
		{
			name:   "a rule edited in a way that changes nothing here",
			rules:  []Rule{Whole(Calls, "/**/id"), volatile[1]},
			frozen: frozen,
			fresh:  raw,
			same:   true,
			hidden: []hidden{{"/0/output/id", `"[redacted: string]"`, `"a1"`, `"[redacted: string]"`}, {"/0/output/note", `"at [time]"`, `"at 2026-04-13T09:00:00Z"`, `"at [time]"`}},
		},
		{
			name:      "a redacted field that disappeared",
			rules:     volatile,
			frozen:    frozen,
			fresh:     `[{"tool":"t","output":{"note":"at 2026-04-13T09:00:00Z","n":1}}]`,
			hidden:    []hidden{{"/0/output/note", `"at [time]"`, `"at 2026-04-13T09:00:00Z"`, `"at [time]"`}},
			different: []difference{{Pointer: "/0/output/id", Old: `"[redacted: string]"`}},
			explain:   []string{""},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustNew(t, tt.rules...)
			c, err := r.CompareBaseline(Calls, tt.frozen, artifactJSON(t, tt.fresh))
			if err != nil {
				t.Fatal(err)
			}
			checkComparison(t, c, tt.same, tt.hidden, tt.different)
			var explain []string
			for _, d := range c.Differences {
				explain = append(explain, r.Explain(d))
			}
			if diff := cmp.Diff(tt.explain, explain); diff != "" {
				t.Errorf("explained (-want +got):\n%s", diff)
			}
			if tt.same != (string(c.New.Data) == string(tt.frozen)) {
				t.Errorf("New.Data and the baseline: same %v\n%s", !tt.same, c.New.Data)
			}
		})
	}
}

func TestExplainWithoutRules(t *testing.T) {
	var none Rules
	d := Difference{Pointer: "/x", Old: Marker("string"), New: Marker("null"), Cause: CauseTypeChanged}
	if got := none.Explain(d); got != "a redacted value changed type, string → null" {
		t.Errorf("Explain = %q", got)
	}
	if got := none.Explain(Difference{Pointer: "/x", Old: []byte("1"), New: []byte("2")}); got != "" {
		t.Errorf("Explain of a plain change = %q", got)
	}
}

func TestCompareAbsentAndInvalid(t *testing.T) {
	r := mustNew(t, volatile...)
	a := artifactJSON(t, `[{"tool":"t","output":{"id":"a1"}}]`)
	c, err := r.Compare(Calls, nil, nil)
	if err != nil || !c.Same || len(c.Differences) != 0 {
		t.Errorf("both absent: %+v, %v", c, err)
	}
	c, err = r.Compare(Calls, a, nil)
	if err != nil || c.Same || len(c.Differences) != 1 || c.Differences[0].Pointer != "" || c.Differences[0].New != nil {
		t.Errorf("one absent: %+v, %v", c.Differences, err)
	}
	if _, err := r.Compare(Calls, a, []byte("{")); err == nil || err.Error() != "redact calls: the artifact is not valid JSON" {
		t.Errorf("fresh not JSON: %v", err)
	}
	if _, err := r.CompareBaseline(Calls, []byte("{"), a); err == nil || err.Error() != "baseline: redact calls: the artifact is not valid JSON" {
		t.Errorf("baseline not JSON: %v", err)
	}
	// a layout that differs and nothing else: not the same bytes, no place
	red, _ := r.Apply(Calls, a)
	c, err = r.CompareBaseline(Calls, []byte(strings.ReplaceAll(string(red.Data), "\n", "\r\n")), a)
	if err != nil || c.Same || len(c.Differences) != 0 {
		t.Errorf("CRLF baseline: same %v, %v, %v", c.Same, c.Differences, err)
	}
	// Hidden and Difference as JSON, for a report
	c, _ = r.Compare(Calls, a, artifactJSON(t, `[{"tool":"t","output":{"id":"b1"}}]`))
	out, err := json.Marshal(c.Hidden)
	if want := `[{"pointer":"/0/output/id","rules":[0],"old":"a1","new":"b1","value":"[redacted: string]"}]`; err != nil || string(out) != want {
		t.Errorf("hidden as JSON: %s, %v", out, err)
	}
}
