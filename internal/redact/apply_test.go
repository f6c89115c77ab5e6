package redact

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agent-oracle/oracle/internal/canon"
	"github.com/google/go-cmp/cmp"
)

// artifactJSON writes JSON as oracle writes an artifact.
func artifactJSON(t testing.TB, s string) []byte {
	t.Helper()
	b, err := canon.Marshal(json.RawMessage(s))
	if err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return b
}

func mustNew(t testing.TB, rules ...Rule) Rules {
	t.Helper()
	r, err := New(rules...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// anyReach is mustNew whatever the rules' reach (checkReach), for the
// tests of how a path selects and a rule applies.
func anyReach(t testing.TB, rules ...Rule) Rules {
	t.Helper()
	var r Rules
	for i, rule := range rules {
		c, err := compileAny(i, rule)
		if err != nil {
			t.Fatal(err)
		}
		r.list = append(r.list, c)
	}
	return r
}

// place is a Place written compactly for a table.
type place struct{ Pointer, Raw, Value string }

func placesOf(ps []Place) []place {
	var out []place
	for _, p := range ps {
		out = append(out, place{p.Pointer, string(p.Raw), string(p.Value)})
	}
	return out
}

func TestApply(t *testing.T) {
	const calls = `[{"tool":"create_order","input":{"item":"x"},"output":{"id":"ord-1","createdAt":"2026-04-13T09:00:00.123Z","total":1.10,"n":1e5}},` +
		`{"tool":"list","input":{},"output":{"orders":[{"id":"ord-1","createdAt":1712345678},{"id":"ord-2","createdAt":null}]}}]`
	tests := []struct {
		name     string
		rules    []Rule
		artifact string // Calls when empty
		in       string
		want     string // in when empty: nothing redacted
		places   []place
		uses     []RuleUse
	}{
		{
			name:  "one field in every call",
			rules: []Rule{Whole(Calls, "/*/output/createdAt")},
			in:    calls,
			want: `[{"tool":"create_order","input":{"item":"x"},"output":{"id":"ord-1","createdAt":"[redacted: string]","total":1.10,"n":1e5}},` +
				`{"tool":"list","input":{},"output":{"orders":[{"id":"ord-1","createdAt":1712345678},{"id":"ord-2","createdAt":null}]}}]`,
			places: []place{{"/0/output/createdAt", `"2026-04-13T09:00:00.123Z"`, `"[redacted: string]"`}},
			uses:   []RuleUse{{1, 1}},
		},
		{
			name:  "any depth, each marker of its type",
			rules: []Rule{Whole(Calls, "/**/createdAt")},
			in:    calls,
			want: `[{"tool":"create_order","input":{"item":"x"},"output":{"id":"ord-1","createdAt":"[redacted: string]","total":1.10,"n":1e5}},` +
				`{"tool":"list","input":{},"output":{"orders":[{"id":"ord-1","createdAt":"[redacted: number]"},{"id":"ord-2","createdAt":"[redacted: null]"}]}}]`,
			places: []place{
				{"/0/output/createdAt", `"2026-04-13T09:00:00.123Z"`, `"[redacted: string]"`},
				{"/1/output/orders/0/createdAt", `1712345678`, `"[redacted: number]"`},
				{"/1/output/orders/1/createdAt", `null`, `"[redacted: null]"`},
			},
			uses: []RuleUse{{3, 3}},
		},
		{
			name:  "objects, arrays and booleans",
			rules: []Rule{Whole(Result, "/a"), Whole(Result, "/b"), Whole(Result, "/c"), Whole(Result, "/d")},
			in:    `{"a":{"x":[1,2]},"b":[{"y":1}],"c":true,"d":false,"e":{}}`,
			want:  `{"a":"[redacted: object]","b":"[redacted: array]","c":"[redacted: boolean]","d":"[redacted: boolean]","e":{}}`,
			places: []place{
				{"/a", `{"x":[1,2]}`, `"[redacted: object]"`},
				{"/b", `[{"y":1}]`, `"[redacted: array]"`},
				{"/c", `true`, `"[redacted: boolean]"`},
				{"/d", `false`, `"[redacted: boolean]"`},
			},
			uses: []RuleUse{{1, 1}, {1, 1}, {1, 1}, {1, 1}},
		},
		{
			name:   "the whole artifact",
			rules:  []Rule{Whole(Result, "")},
			in:     `{"a":1}`,
			want:   `"[redacted: object]"`,
			places: []place{{"", `{"a":1}`, `"[redacted: object]"`}},
			uses:   []RuleUse{{1, 1}},
		},
		{
			name:  "no match: the bytes as they were",
			rules: []Rule{Whole(Calls, "/*/output/updatedAt"), Whole(Calls, "/9/output")},
			in:    calls,
			uses:  []RuleUse{{0, 0}, {0, 0}},
		},
		{
			name:  "rules of another artifact are not used",
			rules: []Rule{Whole(Result, "/*/output/createdAt"), Whole(StateDiff, "/**")},
			in:    calls,
			uses:  []RuleUse{{0, 0}, {0, 0}},
		},
		{
			name:   "escaped keys",
			rules:  []Rule{Whole(Result, "/a~1b"), Whole(Result, "/~0"), Whole(Result, "/~2")},
			in:     `{"a/b":1,"~":2,"*":3,"other":4,"a":{"b":5}}`,
			want:   `{"a/b":"[redacted: number]","~":"[redacted: number]","*":"[redacted: number]","other":4,"a":{"b":5}}`,
			places: []place{{"/a~1b", `1`, `"[redacted: number]"`}, {"/~0", `2`, `"[redacted: number]"`}, {"/*", `3`, `"[redacted: number]"`}},
			uses:   []RuleUse{{1, 1}, {1, 1}, {1, 1}},
		},
		{
			name:   "a key written with escapes in the artifact",
			rules:  []Rule{Whole(Result, "/tab\tkey")},
			in:     `{"tab\u0009key":"v","x":"\u0041"}`,
			want:   `{"tab\u0009key":"[redacted: string]","x":"\u0041"}`, // what is not redacted is kept as written
			places: []place{{"/tab\tkey", `"v"`, `"[redacted: string]"`}},
			uses:   []RuleUse{{1, 1}},
		},
		{
			name:   "key order and numbers kept byte for byte",
			rules:  []Rule{Whole(Result, "/b")},
			in:     `{"z":1.10,"b":2,"a":1e5,"m":-0,"k":1E+2,"big":123456789012345678901234567890,"f":0.1000000000000000055511151231257827}`,
			want:   `{"z":1.10,"b":"[redacted: number]","a":1e5,"m":-0,"k":1E+2,"big":123456789012345678901234567890,"f":0.1000000000000000055511151231257827}`,
			places: []place{{"/b", `2`, `"[redacted: number]"`}},
			uses:   []RuleUse{{1, 1}},
		},
		{
			name:   "the raw value keeps its numbers as written",
			rules:  []Rule{Whole(Result, "/x")},
			in:     `{"x":[1.10,1e5,{"b":1,"a":2}]}`,
			want:   `{"x":"[redacted: array]"}`,
			places: []place{{"/x", `[1.10,1e5,{"b":1,"a":2}]`, `"[redacted: array]"`}},
			uses:   []RuleUse{{1, 1}},
		},
		{
			name:   "a pattern replaces its matches only",
			rules:  []Rule{Match(Result, "/agentOutput", `[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z`, "[time]")},
			in:     `{"agentOutput":"made at 2026-04-13T09:00:00Z, then 2026-04-13T09:00:05.5Z.","other":"2026-04-13T09:00:00Z"}`,
			want:   `{"agentOutput":"made at [time], then [time].","other":"2026-04-13T09:00:00Z"}`,
			places: []place{{"/agentOutput", `"made at 2026-04-13T09:00:00Z, then 2026-04-13T09:00:05.5Z."`, `"made at [time], then [time]."`}},
			uses:   []RuleUse{{1, 1}},
		},
		{
			name:   "$ in replace is literal",
			rules:  []Rule{Match(Result, "/s", `(ord)-([0-9]+)`, "$2-$1 ${1} $$")},
			in:     `{"s":"see ord-17"}`,
			want:   `{"s":"see $2-$1 ${1} $$"}`,
			places: []place{{"/s", `"see ord-17"`, `"see $2-$1 ${1} $$"`}},
			uses:   []RuleUse{{1, 1}},
		},
		{
			name:   "no replace: the default text",
			rules:  []Rule{{Artifact: Result, Path: "/s", Pattern: `pid [0-9]+`}},
			in:     `{"s":"killed (pid 4242)"}`,
			want:   `{"s":"killed ([redacted])"}`,
			places: []place{{"/s", `"killed (pid 4242)"`, `"killed ([redacted])"`}},
			uses:   []RuleUse{{1, 1}},
		},
		{
			name:   "an empty replace deletes",
			rules:  []Rule{Match(Result, "/s", ` \(pid [0-9]+\)`, "")},
			in:     `{"s":"killed (pid 4242)"}`,
			want:   `{"s":"killed"}`,
			places: []place{{"/s", `"killed (pid 4242)"`, `"killed"`}},
			uses:   []RuleUse{{1, 1}},
		},
		{
			name:  "a pattern leaves a value that is not a string, and does not count it",
			rules: []Rule{Match(Result, "/*", `[0-9]+`, "[n]")},
			in:    `{"a":17,"b":[1],"c":{"d":"1"},"e":null}`,
			uses:  []RuleUse{{0, 0}},
		},
		{
			name:  "a string without a match is selected, not changed",
			rules: []Rule{Match(Result, "/a", `[0-9]+`, "[n]")},
			in:    `{"a":"none"}`,
			uses:  []RuleUse{{1, 0}},
		},
		{
			name:   "patterns one after the other, in the list's order",
			rules:  []Rule{Match(Result, "/checks/*/detail", `ORD-[0-9]+`, "ORD-[id]"), Match(Result, "/**/detail", `[0-9]+ ms`, "[took]")},
			in:     `{"checks":[{"detail":"ORD-12 in 40 ms"},{"detail":"fine"},{"detail":"took 3 ms"}]}`,
			want:   `{"checks":[{"detail":"ORD-[id] in [took]"},{"detail":"fine"},{"detail":"took [took]"}]}`,
			places: []place{{"/checks/0/detail", `"ORD-12 in 40 ms"`, `"ORD-[id] in [took]"`}, {"/checks/2/detail", `"took 3 ms"`, `"took [took]"`}},
			uses:   []RuleUse{{3, 1}, {3, 2}},
		},
		{
			name:   "a whole-value rule wins over a pattern on the same value",
			rules:  []Rule{Match(Result, "/s", `x`, "[X]"), Whole(Result, "/s")},
			in:     `{"s":"axb"}`,
			want:   `{"s":"[redacted: string]"}`,
			places: []place{{"/s", `"axb"`, `"[redacted: string]"`}},
			uses:   []RuleUse{{1, 0}, {1, 1}},
		},
		{
			name:   "what lies inside a redacted value is counted, not written",
			rules:  []Rule{Whole(Result, "/a"), Whole(Result, "/a/b"), Whole(Result, "/a/c")},
			in:     `{"a":{"b":1}}`,
			want:   `{"a":"[redacted: object]"}`,
			places: []place{{"/a", `{"b":1}`, `"[redacted: object]"`}},
			uses:   []RuleUse{{1, 1}, {1, 0}, {0, 0}},
		},
		{
			name:   "two rules on one value: both named",
			rules:  []Rule{Whole(Result, "/*/id"), Whole(Result, "/0/*")},
			in:     `[{"id":"x"}]`,
			want:   `[{"id":"[redacted: string]"}]`,
			places: []place{{"/0/id", `"x"`, `"[redacted: string]"`}},
			uses:   []RuleUse{{1, 1}, {1, 1}},
		},
		{
			name:  "a marker stays as it is, and counts as selected",
			rules: []Rule{Whole(Result, "/a"), Match(Result, "/b", `d`, "[D]")},
			in:    `{"a":"[redacted: number]","b":"[redacted: boolean]"}`,
			uses:  []RuleUse{{1, 0}, {1, 0}},
		},
		{
			name:   "a key given twice: each value",
			rules:  []Rule{Whole(Result, "/a")},
			in:     `{"a":1,"a":"x"}`,
			want:   `{"a":"[redacted: number]","a":"[redacted: string]"}`,
			places: []place{{"/a", `1`, `"[redacted: number]"`}, {"/a", `"x"`, `"[redacted: string]"`}},
			uses:   []RuleUse{{2, 2}},
		},
		{
			name:   "strings are written as canon writes them",
			rules:  []Rule{Match(Result, "/s", `[0-9]+`, "<&>")},
			in:     `{"s":"1 \u2028 \"q\" \\ é 2","t":"<&>"}`,
			want:   `{"s":"<&> ` + "\u2028" + ` \"q\" \\ é <&>","t":"<&>"}`,
			places: []place{{"/s", `"1 ` + "\u2028" + ` \"q\" \\ é 2"`, `"<&> ` + "\u2028" + ` \"q\" \\ é <&>"`}},
			uses:   []RuleUse{{1, 1}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := anyReach(t, tt.rules...)
			name := tt.artifact
			if name == "" {
				name = Calls
				if !strings.HasPrefix(tt.in, "[{\"tool") {
					name = Result
				}
			}
			in := artifactJSON(t, tt.in)
			want := in
			if tt.want != "" {
				want = artifactJSON(t, tt.want)
			}
			got, err := r.Apply(name, in)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Data, want) {
				t.Errorf("redacted\n%s\nwant\n%s", got.Data, want)
			}
			if diff := cmp.Diff(tt.places, placesOf(got.Places)); diff != "" {
				t.Errorf("places (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.uses, got.Uses); diff != "" {
				t.Errorf("uses (-want +got):\n%s", diff)
			}
			// idempotent: the redacted artifact redacts to itself
			again, err := r.Apply(name, got.Data)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again.Data, got.Data) || len(again.Places) != 0 {
				t.Errorf("applied twice:\n%s\nplaces %v", again.Data, placesOf(again.Places))
			}
		})
	}
}

func TestApplyNothingToDo(t *testing.T) {
	r := mustNew(t, Whole(Result, "/x"))
	// an absent artifact stays absent
	if got, err := r.Apply(Result, nil); err != nil || got.Data != nil {
		t.Errorf("nil: %q, %v", got.Data, err)
	}
	// with no rule for the artifact, data is not even read
	in := []byte("not JSON")
	if got, err := r.Apply(Calls, in); err != nil || &got.Data[0] != &in[0] {
		t.Errorf("no rule: %q, %v", got.Data, err)
	}
	var none Rules
	if got, err := none.Apply(Calls, in); err != nil || len(got.Uses) != 0 || &got.Data[0] != &in[0] {
		t.Errorf("zero Rules: %q, %v", got.Data, err)
	}
	// nothing redacted: data as it was given, layout and all
	odd := []byte("{\"y\": 1}")
	if got, err := r.Apply(Result, odd); err != nil || !bytes.Equal(got.Data, odd) {
		t.Errorf("nothing redacted: %q, %v", got.Data, err)
	}
	// something redacted: the canonical layout whatever the input's
	got, err := r.Apply(Result, []byte("{\"x\":1,\r\n\t\"y\":[ ]}"))
	if want := "{\n  \"x\": \"[redacted: number]\",\n  \"y\": []\n}\n"; err != nil || string(got.Data) != want {
		t.Errorf("relaid: %q, %v; want %q", got.Data, err, want)
	}
}

func TestApplyErrors(t *testing.T) {
	r := mustNew(t, Whole(Result, "/x"), Match(Calls, "/s", "ab", "a"))
	tests := []struct {
		name, artifact string
		data           []byte
		want           string
	}{
		{"not JSON", Result, []byte(`{"x":`), "redact result: the artifact is not valid JSON"},
		{"two values", Result, []byte(`{} {}`), "redact result: the artifact is not valid JSON"},
		{"a BOM", Result, []byte("\xef\xbb\xbf{}"), "redact result: the artifact is not valid JSON"},
		{"too deep", Result, []byte(strings.Repeat("[", 1001) + strings.Repeat("]", 1001)), "redact result: the artifact is nested too deep (over the limit of 1000 levels)"},
		{"not stable", Calls, []byte(`{"s":"abb"}`), `redact calls: at "/s", redact[1] applied to what they gave change it again ("ab", then "a"); choose a replace text the patterns cannot match around it`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := r.Apply(tt.artifact, tt.data)
			if err == nil || err.Error() != tt.want {
				t.Errorf("error %v, want %s", err, tt.want)
			}
		})
	}
}

func TestApplyIsBounded(t *testing.T) {
	defer func(o, p int) { maxOutput, maxPlaces = o, p }(maxOutput, maxPlaces)
	maxOutput, maxPlaces = 4096, 100
	// a pattern whose replace text is longer than its matches
	grow := mustNew(t, Match(Result, "/s", "a", strings.Repeat("b", 100)))
	if _, err := grow.Apply(Result, []byte(`{"s":"`+strings.Repeat("a", 100)+`"}`)); err == nil ||
		err.Error() != `redact result: at "/s", redact[0] makes the string larger than the limit of 4096 bytes` {
		t.Errorf("a growing string: %v", err)
	}
	// markers, each larger than the number it replaces
	maxPlaces = 1000
	whole := anyReach(t, Whole(Result, "/*/*"))
	big := "[" + strings.Repeat(`[0,0,0,0,0,0,0,0,0,0],`, 30) + "[0]]"
	if _, err := whole.Apply(Result, []byte(big)); err == nil ||
		err.Error() != "redact result: the redacted artifact is larger than the limit of 4096 bytes" {
		t.Errorf("growing markers: %v", err)
	}
	maxOutput, maxPlaces = 1<<20, 100
	if _, err := whole.Apply(Result, []byte(big)); err == nil ||
		err.Error() != "redact result: redacts more than 100 values; redact the array or object that holds them as a whole" {
		t.Errorf("many places: %v", err)
	}
}
