package redact

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// gradedResult is a result.json with every place of Graded filled, and a
// volatile field beside each kind of them.
const gradedResult = `{"passed":true,"verdict":"pass","reward":1,"requiredPassed":2,"requiredTotal":2,` +
	`"failedRequired":["x 1"],"violations":["v 1"],"checksPassed":2,"checksFailed":0,"toolCalls":3,` +
	`"terminationReason":"completed","infrastructure":false,"agentOutput":"at 2026-01-01T00:00:00Z",` +
	`"checks":[{"label":"a 1","passed":true,"detail":"id 17","required":true,"kind":"required"},` +
	`{"label":"b","passed":false,"detail":"d 2","required":false,"kind":"optional"}]}`

// gradedValues are the values of the graded places of a result.json.
func gradedValues(t testing.TB, data []byte) map[string]any {
	t.Helper()
	var r map[string]any
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	out := map[string]any{}
	for _, g := range Graded {
		if !strings.HasPrefix(g, "/checks/") && !strings.HasSuffix(g, "/*") {
			out[g] = r[g[1:]]
		}
	}
	out["/checks"] = nil
	if checks, ok := r["checks"].([]any); ok {
		var kept []any
		for _, c := range checks {
			m, _ := c.(map[string]any)
			kept = append(kept, []any{m["passed"], m["required"], m["kind"]})
		}
		out["/checks"] = kept
	}
	return out
}

// A rule that reaches what grades a rollout, or the whole artifact, is
// refused with the reason, whatever its pattern; a rule beside them is not.
func TestRulesThatBlindAreRefused(t *testing.T) {
	refused := []struct{ artifact, path, want string }{
		{Result, "", `names no key or index`},
		{Result, "/**", `names no key or index`},
		{Result, "/*", `names no key or index`},
		{Result, "/*/*", `names no key or index`},
		{Calls, "/**", `names no key or index, so it would redact the whole calls artifact`},
		{StateDiff, "", `names no key or index`},
		{Result, "/verdict", `"/verdict" reaches /verdict, which grades the rollout`},
		{Result, "/passed", `reaches /passed`},
		{Result, "/reward", `reaches /reward`},
		{Result, "/terminationReason", `reaches /terminationReason`},
		{Result, "/checks", `reaches /checks/*/passed, /checks/*/required, /checks/*/kind, which grade`},
		{Result, "/checks/3", `reaches /checks/*/passed`},
		{Result, "/checks/*/passed", `reaches /checks/*/passed`},
		{Result, "/checks/0/passed", `reaches /checks/*/passed`},
		{Result, "/**/passed", `reaches /passed, /checks/*/passed`},
		{Result, "/**/verdict", `reaches /verdict`},
		{Result, "/failedRequired/0", `reaches /failedRequired/*`},
		{Result, "/*/0", `reaches /failedRequired/*, /violations/*`},
		{Result, "/**/kind", `reaches /checks/*/kind`},
	}
	for _, tt := range refused {
		for _, rule := range []Rule{Whole(tt.artifact, tt.path), Match(tt.artifact, tt.path, "pass|fail|[0-9]", "x")} {
			_, err := New(rule)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "redact[0].path: ") {
				t.Errorf("%s %q: %v, want …%s…", tt.artifact, tt.path, err, tt.want)
			}
		}
	}
	for _, r := range []Rule{
		Whole(Result, "/agentOutput"), Match(Result, "/checks/*/detail", "[0-9]+", "[n]"), Whole(Result, "/**/createdAt"),
		Match(Result, "/**/detail", "[0-9]+", "[n]"), Whole(Result, "/*/id"), Whole(Result, "/checks/*/label"),
		Whole(Calls, "/*/output"), Whole(StateDiff, "/collections/orders/added/*/id"), Whole(Result, "/failedRequired/0/x"),
	} {
		if _, err := New(r); err != nil {
			t.Errorf("%s: %v", r, err)
		}
	}
}

// Whatever a rule's path, a rule New takes leaves every graded value of a
// result.json as it was.
func FuzzRulesNeverBlind(f *testing.F) {
	for _, p := range []string{"/agentOutput", "/**/detail", "/checks/*/label", "/*/0", "/**/id", "/checks/0", "/x/**", "/*/*/detail"} {
		f.Add(p, false)
		f.Add(p, true)
	}
	want := gradedValues(f, []byte(gradedResult))
	f.Fuzz(func(t *testing.T, path string, pattern bool) {
		rule := Whole(Result, path)
		if pattern {
			rule = Match(Result, path, `[a-z0-9]+`, "[x]")
		}
		r, err := New(rule)
		if err != nil {
			return
		}
		res, err := r.Apply(Result, []byte(gradedResult))
		if err != nil {
			return
		}
		if diff := cmp.Diff(want, gradedValues(t, res.Data)); diff != "" {
			t.Errorf("%s redacted what grades (-want +got):\n%s", rule, diff)
		}
	})
}

// Record's proposals never cover what grades: runs whose verdict, checks,
// reward or termination differ get no rule there, are not stable, and say
// where they differ.
func TestProposeNeverCoversWhatGrades(t *testing.T) {
	fail := strings.NewReplacer(`"passed":true,"verdict":"pass","reward":1`, `"passed":false,"verdict":"fail","reward":0`,
		`"label":"a 1","passed":true`, `"label":"a 1","passed":false`, `"completed"`, `"timeout"`,
		`"at 2026-01-01T00:00:00Z"`, `"at 2026-01-02T00:00:00Z"`).Replace(gradedResult)
	p, err := Rules{}.Propose(Result, []byte(gradedResult), []byte(fail))
	if err != nil {
		t.Fatal(err)
	}
	if p.Stable {
		t.Error("stable")
	}
	if diff := cmp.Diff([]string{"/passed", "/verdict", "/reward", "/terminationReason", "/checks/0/passed"}, p.Graded); diff != "" {
		t.Errorf("graded (-want +got):\n%s", diff)
	}
	for _, r := range p.Rules {
		if _, err := New(r); err != nil || r.Path != "/agentOutput" {
			t.Errorf("proposed %s: %v", r, err)
		}
	}
}
