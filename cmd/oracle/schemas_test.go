package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-oracle/oracle/command"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestJSONSchemas runs every command that prints JSON, in success and in
// error, and validates what it printed on stdout against its schema under
// docs/schemas: every --json output is one object with formatVersion 1.
func TestJSONSchemas(t *testing.T) {
	schemas, err := filepath.Abs(filepath.Join("..", "..", "docs", "schemas"))
	if err != nil {
		t.Fatal(err)
	}
	compiler := jsonschema.NewCompiler()
	compiled := map[string]*jsonschema.Schema{}
	entries, err := os.ReadDir(schemas)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".schema.json")
		if !ok {
			continue
		}
		s, err := compiler.Compile(filepath.Join(schemas, e.Name()))
		if err != nil {
			t.Fatalf("schema %s: %v", e.Name(), err)
		}
		compiled[name] = s
	}

	project := t.TempDir()
	// "stamp" stamps a random id and the time, which its manifest redacts
	t.Setenv("ORACLE_TEST_STAMP", "1")
	manifest := filepath.Join(project, ".silo", "environments", "stamp", "silo.environment.json")
	// declare writes the manifest with redact and expects want in stdout
	declare := func(redact, want string) func() string {
		return func() string {
			os.MkdirAll(filepath.Dir(manifest), 0o755)
			os.WriteFile(manifest, []byte(`{"name":"stamp","entrypoint":".","tools":[]`+redact+`}`), 0o644)
			return want
		}
	}
	expect := func(want string) func() string { return func() string { return want } }
	stampRules := `{"artifact":"calls","path":"/*/output/id"},{"artifact":"calls","path":"/*/output/createdAt"},` +
		`{"artifact":"state-diff","path":"/collections/orders/added/*/id"},{"artifact":"state-diff","path":"/collections/orders/added/*/value"},` +
		`{"artifact":"result","path":"/agentOutput"},{"artifact":"result","path":"/checks/*/detail"}`
	baselines := filepath.Join(project, ".silo", "baselines", "calendar", "solver")
	a, b := filepath.Join(baselines, "TASK-001.result.json"), filepath.Join(baselines, "TASK-002.result.json")
	used := map[string]bool{}
	for _, tt := range []struct {
		schema string
		args   []string
		exit   int
		setup  func() string // what stdout must hold, besides its shape
	}{
		{"list", []string{"list", "--json"}, 0, nil},
		{"version", []string{"version", "--json"}, 0, nil},
		{"list-tools", []string{"list", "--tools", "--env", "crm", "--format", "json"}, 0, nil},
		{"list-tools", []string{"list", "--tools", "--env", "calendar", "--json"}, 0, nil},
		{"validate", []string{"validate", "--json"}, 0, nil},
		{"run", []string{"run", "--task", "TASK-004", "--json"}, 0, nil},
		{"runs", []string{"run", "--task", "TASK-004", "--runs", "2", "--json"}, 0, nil},
		{"record", []string{"record", "--env", "calendar", "--json"}, 0, nil},
		{"check", []string{"check", "--env", "calendar", "--json"}, 0, nil},
		{"check", []string{"check", "--env", "crm", "--task", "TASK-00[12]", "--format", "json"}, 1, nil},
		{"diff", []string{"diff", "--json", a, b}, 1, nil},
		{"diff", []string{"diff", "--json", a, a}, 0, nil},
		{"verifier-list", []string{"verifier", "list", "--json"}, 0, nil},
		{"check", []string{"check", "--env", "crm", "--task", "TASK-001", "--pending", "--json"}, 1, nil},
		{"accept", []string{"accept", "--json"}, 0, nil},
		{"accept", []string{"accept", "--json"}, 0, nil},
		{"verifier-test", []string{"verifier", "test", "--env", "calendar", "--task", "TASK-001", "--json"}, 0, nil},
		{"record", []string{"record", "--env", "stamp", "--json"}, 1, declare("", `"proposal"`)},
		{"record", []string{"record", "--env", "stamp", "--json"}, 0, declare(`,"redact":[`+stampRules+`]`, `"wrote"`)},
		{"check", []string{"check", "--env", "stamp", "--json", "--show-redacted"}, 0, expect(`"shown"`)},
		{"runs", []string{"run", "--env", "stamp", "--task", "TASK-001", "--runs", "2", "--json"}, 0, expect(`"redacted": true`)},
		{"check", []string{"check", "--env", "stamp", "--json"}, 1, declare(`,"redact":[`+stampRules+`,{"artifact":"calls","path":"/*/input"}]`, `"redactions"`)},
		{"error", []string{"list", "--json", "--env", "nope"}, 2, nil},
		{"error", []string{"run", "--json", "--task", "TASK-404"}, 2, nil},
		{"error", []string{"run", "--json", "--env", "crm"}, 2, nil},
		{"error", []string{"check", "--format", "json", "--repeat", "zero"}, 2, nil},
		{"error", []string{"check", "--json", "stray"}, 2, nil},
		{"error", []string{"diff", "--json", a, filepath.Join(project, "none.json")}, 2, nil},
		{"error", []string{"verifier", "test", "--json", "--task", "TASK-404"}, 2, nil},
	} {
		used[tt.schema] = true
		want := ""
		if tt.setup != nil {
			want = tt.setup()
		}
		var stdout, stderr bytes.Buffer
		args := append([]string{"oracle", "--dir", project}, tt.args...)
		code := command.Run(context.Background(), args, testEnvironments, &stdout, &stderr)
		line := strings.Join(tt.args, " ")
		if code != tt.exit {
			t.Errorf("%s: exit %d, want %d; stderr %s", line, code, tt.exit, stderr.String())
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(stdout.Bytes()))
		if err != nil {
			t.Errorf("%s: stdout is not JSON: %v\n%s", line, err, stdout.String())
			continue
		}
		if err := compiled[tt.schema].Validate(inst); err != nil {
			t.Errorf("%s: stdout does not match %s.schema.json: %v\n%s", line, tt.schema, err, stdout.String())
		}
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("%s: no %s in stdout:\n%s", line, want, stdout.String())
		}
		var top struct {
			FormatVersion json.Number `json:"formatVersion"`
		}
		if err := json.Unmarshal(stdout.Bytes(), &top); err != nil || top.FormatVersion != "1" {
			t.Errorf("%s: formatVersion %q (%v), want the number 1", line, top.FormatVersion, err)
		}
		if tt.exit == 2 && stderr.Len() > 0 {
			t.Errorf("%s: an error under --json printed on stderr too: %s", line, stderr.String())
		}
	}
	// mutate's output needs a project with a Go module to build its
	// mutants: the script mutate_project.txtar validates it (schema mutate).
	used["mutate"] = true
	for name := range compiled {
		if !used[name] {
			t.Errorf("docs/schemas/%s.schema.json is validated against no output", name)
		}
	}
}
