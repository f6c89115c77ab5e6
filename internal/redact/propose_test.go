package redact

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const (
	uuidPattern = `[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`
	timePattern = `[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?(?:[Zz]|[+-][0-9]{2}:[0-9]{2})?`
	numPattern  = `\b[0-9]+(?:\.[0-9]+)?\b`
	hexPattern  = `\b[0-9a-fA-F]{8,}\b`
	tempPattern = `(?:/private)?/(?:tmp|var/tmp|var/folders)(?:/[\w.+@%-]+)+|[A-Za-z]:\\Users\\[^\\\s"]+\\AppData\\Local\\Temp(?:\\[\w.+@%-]+)+`
)

func TestPropose(t *testing.T) {
	tests := []struct {
		name     string
		artifact string
		existing []Rule
		runs     []string
		want     []Rule
		unstable bool
	}{
		{
			name:     "tokens in strings, ids of members, a check's detail",
			artifact: Result,
			runs: []string{
				`{"agentOutput":"made 3f2a1b4c-1111-2222-3333-444455556666 at 2026-04-13T09:00:01Z","checks":[{"label":"l","detail":"x"},{"label":"m","detail":"order 3f2a1b4c-1111-2222-3333-444455556666 exists"}],"error":"killed (pid 123)"}`,
				`{"agentOutput":"made 9f2a1b4c-1111-2222-3333-444455556666 at 2026-04-13T09:00:07.25Z","checks":[{"label":"l","detail":"x"},{"label":"m","detail":"order 9f2a1b4c-1111-2222-3333-444455556666 exists"}],"error":"killed (pid 4567)"}`,
			},
			want: []Rule{
				Match(Result, "/agentOutput", uuidPattern, "[uuid]"),
				Match(Result, "/agentOutput", timePattern, "[time]"),
				Match(Result, "/checks/*/detail", uuidPattern, "[uuid]"),
				Match(Result, "/error", numPattern, "[number]"),
			},
		},
		{
			name:     "the example of docs/redaction.md",
			artifact: Calls,
			runs: []string{
				`[{"tool":"create_order","input":{"item":"widget"},"output":{"id":"3f2a1b4c-0d1e-4f00-8a2b-1c2d3e4f5a6b","createdAt":"2026-04-13T09:00:00.1234Z"}}]`,
				`[{"tool":"create_order","input":{"item":"widget"},"output":{"id":"91c0ffee-0d1e-4f00-8a2b-1c2d3e4f5a6b","createdAt":"2026-04-13T09:00:02.5Z"}}]`,
			},
			want: []Rule{Match(Calls, "/*/output/id", uuidPattern, "[uuid]"), Match(Calls, "/*/output/createdAt", timePattern, "[time]")},
		},
		{
			name:     "the same field of every member",
			artifact: Calls,
			runs: []string{
				`[{"tool":"create","output":{"id":"k1","n":1}},{"tool":"create","output":{"id":"k2","n":1}},{"tool":"list","output":{"items":[{"id":"k1"},{"id":"k2"}]}}]`,
				`[{"tool":"create","output":{"id":"q1","n":1}},{"tool":"create","output":{"id":"q2","n":1}},{"tool":"list","output":{"items":[{"id":"q1"},{"id":"q2"}]}}]`,
			},
			want: []Rule{Whole(Calls, "/*/output/id"), Whole(Calls, "/*/output/items/*/id")},
		},
		{
			name:     "one member: its index stays",
			artifact: Calls,
			runs: []string{
				`[{"tool":"create","output":{"id":"k1"}},{"tool":"get","output":{"id":"same"}}]`,
				`[{"tool":"create","output":{"id":"q1"}},{"tool":"get","output":{"id":"same"}}]`,
			},
			want: []Rule{Whole(Calls, "/0/output/id")},
		},
		{
			name:     "two fields of one object stay two rules",
			artifact: Result,
			runs:     []string{`{"a":"x1","b":"y1","c":"z"}`, `{"a":"x2","b":"y2","c":"z"}`},
			want:     []Rule{Whole(Result, "/a"), Whole(Result, "/b")},
		},
		{
			name:     "members of an object keyed by id",
			artifact: StateDiff,
			runs: []string{
				`{"scalars":[],"collections":{"accounts":{"ACC-1":{"createdAt":"2026-04-13T09:00:01Z","n":1},"ACC-2":{"createdAt":"2026-04-13T09:00:02Z","n":2}}}}`,
				`{"scalars":[],"collections":{"accounts":{"ACC-1":{"createdAt":"2026-04-14T10:00:01Z","n":1},"ACC-2":{"createdAt":"2026-04-14T10:00:02Z","n":2}}}}`,
			},
			want: []Rule{Match(StateDiff, "/collections/accounts/*/createdAt", timePattern, "[time]")},
		},
		{
			name:     "keys that name fields are not merged",
			artifact: Calls,
			runs:     []string{`[{"input":{"id":"k1"},"output":{"id":"k1"}}]`, `[{"input":{"id":"q1"},"output":{"id":"q1"}}]`},
			want:     []Rule{Whole(Calls, "/0/input/id"), Whole(Calls, "/0/output/id")},
		},
		{
			name:     "added members with random ids",
			artifact: StateDiff,
			runs: []string{
				`{"scalars":[],"collections":{"orders":{"added":[{"id":"ord-3f2a1b4c-1111-2222-3333-444455556666","value":{"id":"ord-3f2a1b4c-1111-2222-3333-444455556666","total":5}}],"removed":[],"changed":[]}}}`,
				`{"scalars":[],"collections":{"orders":{"added":[{"id":"ord-0b2a1b4c-1111-2222-3333-444455556666","value":{"id":"ord-0b2a1b4c-1111-2222-3333-444455556666","total":5}}],"removed":[],"changed":[]}}}`,
			},
			want: []Rule{
				Match(StateDiff, "/collections/orders/added/*/id", uuidPattern, "[uuid]"),
				Match(StateDiff, "/collections/orders/added/*/value/id", uuidPattern, "[uuid]"),
			},
		},
		{
			name:     "nested arrays",
			artifact: Calls,
			runs: []string{
				`[{"output":{"items":[{"id":"r1"},{"id":"r2"}]}},{"output":{"items":[{"id":"r3"}]}}]`,
				`[{"output":{"items":[{"id":"s1"},{"id":"s2"}]}},{"output":{"items":[{"id":"s3"}]}}]`,
			},
			want: []Rule{Whole(Calls, "/*/output/items/*/id")},
		},
		{
			name:     "a temporary path, a hex id, a number standing alone",
			artifact: Result,
			runs: []string{
				`{"a":"wrote /tmp/go-build123/out.txt","b":"commit deadbeef01","c":"took 17 ms"}`,
				`{"a":"wrote /tmp/go-build987/out.txt","b":"commit 0badc0de22","c":"took 9 ms"}`,
			},
			want: []Rule{
				Match(Result, "/a", tempPattern, "[temp-path]"),
				Match(Result, "/b", hexPattern, "[hex]"),
				Match(Result, "/c", numPattern, "[number]"),
			},
		},
		{
			name:     "a string that differs otherwise, and a number",
			artifact: Result,
			runs:     []string{`{"s":"red","n":0.30000000000000004}`, `{"s":"blue","n":0.3}`},
			want:     []Rule{Whole(Result, "/s"), Whole(Result, "/n")},
		},
		{
			name:     "a field some runs lack: the value above it",
			artifact: Result,
			runs:     []string{`{"a":{"x":1,"t":"u1"},"b":1}`, `{"a":{"x":1},"b":1}`},
			want:     []Rule{Whole(Result, "/a")},
		},
		{
			name:     "three runs: every place any of them differs at",
			artifact: Result,
			runs:     []string{`{"a":1,"b":1,"c":1}`, `{"a":2,"b":1,"c":1}`, `{"a":1,"b":1,"c":3}`},
			want:     []Rule{Whole(Result, "/a"), Whole(Result, "/c")},
		},
		{
			name:     "rules already there are kept and not proposed again",
			artifact: Calls,
			existing: []Rule{Whole(Calls, "/*/output/id")},
			runs: []string{
				`[{"output":{"id":"k1","at":"2026-04-13T09:00:01Z"}},{"output":{"id":"k2","at":"2026-04-13T09:00:02Z"}}]`,
				`[{"output":{"id":"q1","at":"2026-04-13T09:00:03Z"}},{"output":{"id":"q2","at":"2026-04-13T09:00:04Z"}}]`,
			},
			want: []Rule{Match(Calls, "/*/output/at", timePattern, "[time]")},
		},
		{
			name:     "keys that need escapes in a path",
			artifact: Result,
			runs:     []string{`{"a/b":{"*":"x1"},"~":"y1"}`, `{"a/b":{"*":"x2"},"~":"y2"}`},
			want:     []Rule{Whole(Result, "/a~1b/~2"), Whole(Result, "/~0")},
		},
		{
			name:     "runs of another type altogether",
			artifact: Result,
			runs:     []string{`[1]`, `{"a":1}`},
			want:     []Rule{},
			unstable: true,
		},
		{
			name:     "an array of another length",
			artifact: Calls,
			runs:     []string{`[{"tool":"a"}]`, `[{"tool":"a"},{"tool":"b"}]`},
			want:     []Rule{},
			unstable: true,
		},
		{
			name:     "runs that agree",
			artifact: Result,
			runs:     []string{`{"a":1}`, `{"a":1}`},
			want:     []Rule{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustNew(t, tt.existing...)
			runs := make([][]byte, len(tt.runs))
			for i, s := range tt.runs {
				runs[i] = artifactJSON(t, s)
			}
			p, err := r.Propose(tt.artifact, runs...)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, p.Rules); diff != "" {
				t.Errorf("rules (-want +got):\n%s", diff)
			}
			if p.Stable == tt.unstable {
				t.Errorf("Stable = %v", p.Stable)
			}
			// the JSON text is a list that pastes into a manifest
			if len(tt.want) == 0 {
				if string(p.JSON) != "[]\n" {
					t.Errorf("JSON = %q", p.JSON)
				}
				return
			}
			pasted, err := ParseRules(p.JSON)
			if err != nil {
				t.Fatalf("%s: %v", p.JSON, err)
			}
			if diff := cmp.Diff(p.Rules, pasted.List()); diff != "" {
				t.Errorf("pasted (-want +got):\n%s", diff)
			}
			if !strings.HasPrefix(string(p.JSON), "[\n  {\n    \"artifact\": ") {
				t.Errorf("JSON not laid out as a manifest is:\n%s", p.JSON)
			}
		})
	}
}

func TestProposeErrors(t *testing.T) {
	var r Rules
	if _, err := r.Propose(Result, []byte(`{}`)); err == nil || err.Error() != "propose: needs two runs or more" {
		t.Errorf("one run: %v", err)
	}
	if _, err := r.Propose(Result, []byte(`{}`), nil); err == nil || err.Error() != "propose: run 2 has no result artifact" {
		t.Errorf("an absent run: %v", err)
	}
	if _, err := r.Propose(Result, []byte(`{}`), []byte(`{`)); err == nil || err.Error() != "propose: run 2: redact result: the artifact is not valid JSON" {
		t.Errorf("a run not JSON: %v", err)
	}
}

// Each token's pattern and replace pass the checks a rule gets.
func TestTokensAreRules(t *testing.T) {
	for _, tok := range tokens {
		if _, err := New(Match(Result, "/x", tok.pattern, tok.replace)); err != nil {
			t.Errorf("%s: %v", tok.replace, err)
		}
	}
}

// The proposal docs/redaction.md shows is what Propose writes for its
// example, byte for byte.
func TestDocsProposalExample(t *testing.T) {
	doc, err := os.ReadFile("../../docs/redaction.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "## Proposed rules")
	_, block, ok2 := strings.Cut(section, "```json\n")
	block, _, ok3 := strings.Cut(block, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("no JSON block under ## Proposed rules")
	}
	var none Rules
	p, err := none.Propose(Calls,
		artifactJSON(t, `[{"tool":"create_order","input":{"item":"widget"},"output":{"id":"3f2a1b4c-0d1e-4f00-8a2b-1c2d3e4f5a6b","createdAt":"2026-04-13T09:00:00.1234Z"}}]`),
		artifactJSON(t, `[{"tool":"create_order","input":{"item":"widget"},"output":{"id":"91c0ffee-0d1e-4f00-8a2b-1c2d3e4f5a6b","createdAt":"2026-04-13T09:00:02.5Z"}}]`))
	if err != nil {
		t.Fatal(err)
	}
	if string(p.JSON) != block {
		t.Errorf("docs/redaction.md shows\n%s\nPropose writes\n%s", block, p.JSON)
	}
}
