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
	baselines := filepath.Join(project, ".silo", "baselines", "calendar", "solver")
	a, b := filepath.Join(baselines, "TASK-001.result.json"), filepath.Join(baselines, "TASK-002.result.json")
	used := map[string]bool{}
	for _, tt := range []struct {
		schema string
		args   []string
		exit   int
	}{
		{"list", []string{"list", "--json"}, 0},
		{"version", []string{"version", "--json"}, 0},
		{"list-tools", []string{"list", "--tools", "--env", "crm", "--format", "json"}, 0},
		{"list-tools", []string{"list", "--tools", "--env", "calendar", "--json"}, 0},
		{"validate", []string{"validate", "--json"}, 0},
		{"run", []string{"run", "--task", "TASK-004", "--json"}, 0},
		{"runs", []string{"run", "--task", "TASK-004", "--runs", "2", "--json"}, 0},
		{"record", []string{"record", "--env", "calendar", "--json"}, 0},
		{"check", []string{"check", "--env", "calendar", "--json"}, 0},
		{"check", []string{"check", "--env", "crm", "--task", "TASK-00[12]", "--format", "json"}, 1},
		{"diff", []string{"diff", "--json", a, b}, 1},
		{"diff", []string{"diff", "--json", a, a}, 0},
		{"verifier-list", []string{"verifier", "list", "--json"}, 0},
		{"check", []string{"check", "--env", "crm", "--task", "TASK-001", "--pending", "--json"}, 1},
		{"accept", []string{"accept", "--json"}, 0},
		{"accept", []string{"accept", "--json"}, 0},
		{"verifier-test", []string{"verifier", "test", "--env", "calendar", "--task", "TASK-001", "--json"}, 0},
		{"error", []string{"list", "--json", "--env", "nope"}, 2},
		{"error", []string{"run", "--json", "--task", "TASK-404"}, 2},
		{"error", []string{"run", "--json", "--env", "crm"}, 2},
		{"error", []string{"check", "--format", "json", "--repeat", "zero"}, 2},
		{"error", []string{"check", "--json", "stray"}, 2},
		{"error", []string{"diff", "--json", a, filepath.Join(project, "none.json")}, 2},
		{"error", []string{"verifier", "test", "--json", "--task", "TASK-404"}, 2},
	} {
		used[tt.schema] = true
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
	for name := range compiled {
		if !used[name] {
			t.Errorf("docs/schemas/%s.schema.json is validated against no output", name)
		}
	}
}
