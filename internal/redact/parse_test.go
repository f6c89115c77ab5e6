package redact

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseRules(t *testing.T) {
	rules, err := ParseRules([]byte(` [
		{"artifact": "calls", "path": "/*/output/createdAt"},
		{"artifact": "state-diff", "path": "/collections/orders/added/*/id"},
		{"artifact": "result", "path": "/agentOutput", "pattern": "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z", "replace": "[time]"},
		{"path": "/checks/*/detail", "pattern": "ORD-[0-9]+", "artifact": "result"},
		{"artifact": "result", "path": "/agentOutput"}
	] `))
	if err != nil {
		t.Fatal(err)
	}
	want := []Rule{
		Whole(Calls, "/*/output/createdAt"),
		Whole(StateDiff, "/collections/orders/added/*/id"),
		Match(Result, "/agentOutput", "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z", "[time]"),
		{Artifact: Result, Path: "/checks/*/detail", Pattern: "ORD-[0-9]+"},
		Whole(Result, "/agentOutput"),
	}
	if diff := cmp.Diff(want, rules.List()); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
	// the Go constructors make the same list
	fromGo, err := New(want...)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(rules.List(), fromGo.List()); diff != "" {
		t.Errorf("New (-parsed +New):\n%s", diff)
	}
	// what MarshalJSON writes parses back to the same list
	data, err := json.Marshal(rules)
	if err != nil {
		t.Fatal(err)
	}
	again, err := ParseRules(data)
	if err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	if diff := cmp.Diff(rules.List(), again.List()); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	if got, want := rules.Name(2), `redact[2] (result /agentOutput, pattern "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z")`; got != want {
		t.Errorf("Name(2) = %s, want %s", got, want)
	}
	if got, want := rules.Name(0), `redact[0] (calls /*/output/createdAt)`; got != want {
		t.Errorf("Name(0) = %s, want %s", got, want)
	}
}

func TestParseRulesErrors(t *testing.T) {
	tests := []struct {
		name, data, want string
		index            int    // of the *RuleError; -1: another error
		field            string // of the *RuleError
	}{
		{"empty list", `[]`, `redact: the list is empty; give at least one rule, or leave "redact" out`, -1, ""},
		{"null", `null`, `redact: must be a list of rules, not null`, -1, ""},
		{"object", `{"artifact":"calls","path":"/x"}`, `redact: must be a list of rules, not an object`, -1, ""},
		{"not JSON", `[{"artifact":`, ``, 0, ""},
		{"two values", `[{"artifact":"calls","path":"/x"}] []`, `redact: more than one JSON value; the list is one array`, -1, ""},
		{"entry not an object", `[{"artifact":"calls","path":"/x"}, 7]`, `redact[1]: must be an object with artifact and path, not a number`, 1, ""},
		{"unknown key", `[{"artifact":"calls","path":"/x","patern":"a"}]`, `redact[0]: unknown key "patern"; a rule has artifact, path and optionally pattern and replace`, 0, ""},
		{"letter case", `[{"artifact":"calls","Path":"/x"}]`, `redact[0]: key "Path" is spelt "path"; keys match exactly, letter case included`, 0, ""},
		{"key twice", `[{"artifact":"calls","path":"/x","path":"/y"}]`, `redact[0].path: is given twice; keep one`, 0, "path"},
		{"number path", `[{"artifact":"calls","path":3}]`, `redact[0].path: must be a string, not a number`, 0, "path"},
		{"null pattern", `[{"artifact":"calls","path":"/x","pattern":null}]`, `redact[0].pattern: must be a string, not null`, 0, "pattern"},
		{"array artifact", `[{"artifact":["calls"],"path":"/x"}]`, `redact[0].artifact: must be a string, not an array`, 0, "artifact"},
		{"boolean replace", `[{"artifact":"calls","path":"/x","pattern":"a","replace":true}]`, `redact[0].replace: must be a string, not a boolean`, 0, "replace"},
		{"missing artifact", `[{"path":"/x"}]`, `redact[0].artifact: is missing; name one of result, state-diff, calls`, 0, "artifact"},
		{"missing path", `[{"artifact":"calls"}]`, `redact[0].path: is missing; give a JSON Pointer such as "/checks/*/detail" ("" is the whole artifact)`, 0, "path"},
		{"unknown artifact", `[{"artifact":"calls","path":"/x"},{"artifact":"calls.json","path":"/x"}]`, `redact[1].artifact: unknown artifact "calls.json"; name one of result, state-diff, calls`, 1, "artifact"},
		{"trace is not an artifact", `[{"artifact":"trace","path":"/x"}]`, `redact[0].artifact: unknown artifact "trace"; name one of result, state-diff, calls`, 0, "artifact"},
		{"path without slash", `[{"artifact":"result","path":"agentOutput"}]`, `redact[0].path: "agentOutput" is not a JSON Pointer: it must be empty (the whole artifact) or start with /; write "/agentOutput"`, 0, "path"},
		{"star inside a segment", `[{"artifact":"result","path":"/checks/d*"}]`, `redact[0].path: segment "d*": * is a wildcard only as a whole segment (* or **); write ~2 for a literal * in a key`, 0, "path"},
		{"three stars", `[{"artifact":"result","path":"/***"}]`, `redact[0].path: segment "***": * is a wildcard only as a whole segment (* or **); write ~2 for a literal * in a key`, 0, "path"},
		{"bad escape", `[{"artifact":"result","path":"/a~3"}]`, `redact[0].path: segment "a~3": ~ must be followed by 0 (for ~), 1 (for /) or 2 (for *)`, 0, "path"},
		{"escape at the end", `[{"artifact":"result","path":"/a~"}]`, `redact[0].path: segment "a~": ~ must be followed by 0 (for ~), 1 (for /) or 2 (for *)`, 0, "path"},
		{"too many segments", `[{"artifact":"result","path":"` + strings.Repeat("/a", 64) + `"}]`, `redact[0].path: has 64 segments, over the limit of 63; ** matches any number of them`, 0, "path"},
		{"pattern does not compile", `[{"artifact":"result","path":"/x","pattern":"("}]`, "redact[0].pattern: does not compile as RE2: error parsing regexp: missing closing ): `(`", 0, "pattern"},
		{"lookahead is not RE2", `[{"artifact":"result","path":"/x","pattern":"a(?=b)"}]`, "redact[0].pattern: does not compile as RE2: error parsing regexp: invalid or unsupported Perl syntax: `(?=`", 0, "pattern"},
		{"empty pattern", `[{"artifact":"result","path":"/x","pattern":""}]`, `redact[0].pattern: is empty; leave pattern out to redact the whole value`, 0, "pattern"},
		{"pattern matches nothing at all", `[{"artifact":"result","path":"/x","pattern":"a*"}]`, `redact[0].pattern: "a*" matches the empty string, so it would insert the replace text between every character; make it match at least one character`, 0, "pattern"},
		{"replace without pattern", `[{"artifact":"result","path":"/x","replace":"[t]"}]`, `redact[0].replace: is given without a pattern; give a pattern whose matches it replaces, or leave replace out to redact the whole value`, 0, "replace"},
		{"replace matched by its pattern", `[{"artifact":"result","path":"/x","pattern":"[0-9]+","replace":"n=1"}]`, `redact[0].replace: the replace text "n=1" is matched by the pattern itself, so redacting twice would change it again; choose a replace text the pattern does not match`, 0, "replace"},
		{"default replace matched by the pattern", `[{"artifact":"result","path":"/x","pattern":"\\[[a-z]+\\]"}]`, `redact[0].pattern: the replace text "[redacted]" is matched by the pattern itself, so redacting twice would change it again; choose a replace text the pattern does not match`, 0, "pattern"},
		{"replace too long", `[{"artifact":"result","path":"/x","pattern":"a","replace":"` + strings.Repeat("x", 1025) + `"}]`, `redact[0].replace: is 1025 bytes long, over the limit of 1024`, 0, "replace"},
		{"same rule twice", `[{"artifact":"calls","path":"/*/id"},{"artifact":"result","path":"/*/id"},{"path":"/*/id","artifact":"calls"}]`, `redact[2]: is the same rule as redact[0]; keep one`, 2, ""},
		{"same pattern rule twice", `[{"artifact":"result","path":"/x","pattern":"b"},{"artifact":"result","path":"/x","pattern":"b","replace":"[redacted]"}]`, `redact[1]: is the same rule as redact[0]; keep one`, 1, ""},
		{"control characters are quoted", "[{\"artifact\":\"calls\\u001b[31m\",\"path\":\"/x\"}]", `redact[0].artifact: unknown artifact "calls\x1b[31m"; name one of result, state-diff, calls`, 0, "artifact"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseRules([]byte(tt.data))
			if err == nil {
				t.Fatal("no error")
			}
			if tt.want != "" && err.Error() != tt.want {
				t.Errorf("error\n got %s\nwant %s", err, tt.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err)
			}
			var re *RuleError
			switch {
			case tt.index < 0 && errors.As(err, &re):
				t.Errorf("a *RuleError for the list as a whole: %v", err)
			case tt.index >= 0 && !errors.As(err, &re):
				t.Errorf("not a *RuleError: %v", err)
			case tt.index >= 0 && (re.Index != tt.index || re.Field != tt.field):
				t.Errorf("names entry %d field %q, want %d %q", re.Index, re.Field, tt.index, tt.field)
			}
		})
	}
}

func TestParseRulesBounds(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("[")
	for i := range MaxRules + 1 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"artifact":"calls","path":"/` + strings.Repeat("a", i%50+1) + `/` + string(rune('a'+i/50)) + `"}`)
	}
	b.WriteString("]")
	if _, err := ParseRules(b.Bytes()); err == nil || err.Error() != "redact: more than 1000 rules" {
		t.Errorf("1001 rules: %v", err)
	}
	deep := strings.Repeat("[", 2000) + strings.Repeat("]", 2000)
	if _, err := ParseRules([]byte(deep)); err == nil || !strings.Contains(err.Error(), "nested too deep") {
		t.Errorf("deep list: %v", err)
	}
}

func TestNew(t *testing.T) {
	r, err := New()
	if err != nil || r.Len() != 0 {
		t.Fatalf("New() = %d rules, %v", r.Len(), err)
	}
	if data, _ := json.Marshal(r); string(data) != "null" {
		t.Errorf("no rules marshal as %s, want null", data)
	}
	// a Go list is checked as a manifest's is
	_, err = New(Whole(Calls, "/x"), Match(Result, "/y", "(", "[t]"))
	if err == nil || err.Error() != "redact[1].pattern: does not compile as RE2: error parsing regexp: missing closing ): `(`" {
		t.Errorf("New with a bad pattern: %v", err)
	}
	_, err = New(Rule{Artifact: Calls, Path: "/x", Replace: new(string)})
	if err == nil || !strings.HasPrefix(err.Error(), "redact[0].replace: is given without a pattern") {
		t.Errorf("New with replace and no pattern: %v", err)
	}
	// a path reaches New without passing through a JSON decoder
	if _, err = New(Whole(Result, "/\xff")); err == nil || err.Error() != "redact[0].path: is not valid UTF-8" {
		t.Errorf("New with a path that is not UTF-8: %v", err)
	}
	if _, err = New(Match(Result, "/x", "a", "\xd5")); err == nil || err.Error() != "redact[0].replace: is not valid UTF-8" {
		t.Errorf("New with a replace text that is not UTF-8: %v", err)
	}
	// an empty replace text is allowed: the matches are deleted
	r, err = New(Match(Result, "/y", " \\(pid [0-9]+\\)", ""))
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Rule(0).String(); got != `{"artifact":"result","path":"/y","pattern":" \\(pid [0-9]+\\)","replace":""}` {
		t.Errorf("String = %s", got)
	}
}

// A manifest holds a Rules field; json.Decoder with its strict options
// reads it through UnmarshalJSON, null and absent alike meaning none.
func TestRulesInAManifest(t *testing.T) {
	type manifest struct {
		Name   string `json:"name"`
		Redact Rules  `json:"redact,omitzero"`
	}
	decode := func(s string) (manifest, error) {
		var m manifest
		dec := json.NewDecoder(strings.NewReader(s))
		dec.DisallowUnknownFields()
		err := dec.Decode(&m)
		return m, err
	}
	for _, s := range []string{`{"name":"x"}`, `{"name":"x","redact":null}`} {
		m, err := decode(s)
		if err != nil || m.Redact.Len() != 0 {
			t.Errorf("%s: %d rules, %v", s, m.Redact.Len(), err)
		}
		// a manifest without rules writes no "redact" key
		if out, err := json.Marshal(m); err != nil || string(out) != `{"name":"x"}` {
			t.Errorf("%s written back: %s, %v", s, out, err)
		}
	}
	m, err := decode(`{"name":"x","redact":[{"artifact":"calls","path":"/*/output/id"}]}`)
	if err != nil || m.Redact.Len() != 1 || !m.Redact.Has(Calls) || m.Redact.Has(Result) {
		t.Errorf("one rule: %+v, %v", m.Redact.List(), err)
	}
	_, err = decode(`{"name":"x","redact":[{"artifact":"calls","path":"/x","pattern":"("}]}`)
	var re *RuleError
	if !errors.As(err, &re) || re.Index != 0 || re.Field != "pattern" {
		t.Errorf("a bad rule in a manifest: %v", err)
	}
	if _, err = decode(`{"name":"x","redact":[]}`); !errors.Is(err, ErrEmpty) {
		t.Errorf("an empty list in a manifest: %v", err)
	}
	out, err := json.Marshal(m)
	if want := `{"name":"x","redact":[{"artifact":"calls","path":"/*/output/id"}]}`; err != nil || string(out) != want {
		t.Errorf("marshal: %s, %v; want %s", out, err, want)
	}
}
