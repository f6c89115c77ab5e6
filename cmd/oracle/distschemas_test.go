package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/agent-oracle/oracle/command"
	"github.com/rogpeppe/go-internal/testscript"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemaCmd is the script command schema NAME FILE: FILE holds JSON that
// matches docs/schemas/NAME.schema.json.
func schemaCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: schema NAME FILE")
	}
	s, err := jsonschema.NewCompiler().Compile(filepath.Join("..", "..", "docs", "schemas", args[0]+".schema.json"))
	ts.Check(err)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(ts.ReadFile(args[1]))))
	if err != nil {
		ts.Fatalf("%s is not JSON: %v", args[1], err)
	}
	if err := s.Validate(inst); err != nil {
		ts.Fatalf("%s does not match %s.schema.json: %v", args[1], args[0], err)
	}
}

// TestDistributionJSONSchemas: the JSON outputs of record --runs, check of
// distribution cases (a regression, its shards and their merge) and run of
// a command that does not exist match their schemas under docs/schemas,
// and exit as documented: 1 for a regression, 2 for trouble.
func TestDistributionJSONSchemas(t *testing.T) {
	t.Setenv("ORACLE_TEST_STOCHASTIC", "0.8")
	compiler := jsonschema.NewCompiler()
	schema := func(name string) *jsonschema.Schema {
		s, err := compiler.Compile(filepath.Join("..", "..", "docs", "schemas", name+".schema.json"))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	project := t.TempDir()
	s1, s2 := filepath.Join(project, "s1.json"), filepath.Join(project, "s2.json")
	run := func(schemaName string, exit int, args ...string) []byte {
		t.Helper()
		var stdout, stderr bytes.Buffer
		code := command.Run(context.Background(), append([]string{"oracle", "--dir", project}, args...), testEnvironments, &stdout, &stderr)
		if code != exit {
			t.Errorf("%v: exit %d, want %d; stderr %s", args, code, exit, stderr.String())
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(stdout.Bytes()))
		if err != nil {
			t.Fatalf("%v: not JSON: %v\n%s", args, err, stdout.String())
		}
		if err := schema(schemaName).Validate(inst); err != nil {
			t.Errorf("%v: does not match %s.schema.json: %v", args, schemaName, err)
		}
		return stdout.Bytes()
	}
	run("record", 0, "record", "--agent", "stochastic", "--runs", "5", "--json")
	run("record", 0, "record", "--env", "crm", "--agent", "solver", "--task", "TASK-001", "--runs", "2", "--json")
	run("check", 0, "check", "--agent", "stochastic", "--json")
	t.Setenv("ORACLE_TEST_STOCHASTIC", "0.2")
	whole := run("check", 1, "check", "--agent", "stochastic", "--json")
	for i, path := range []string{s1, s2} {
		data := run("check", 1, "check", "--agent", "stochastic", "--json", "--shard", []string{"1/2", "2/2"}[i])
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if merged := run("check", 1, "check", "--merge", s1, "--merge", s2, "--json"); !bytes.Equal(merged, whole) {
		t.Errorf("the merged shards are not the whole check's report")
	}
	run("run", 2, "run", "--env", "crm", "--task", "TASK-001", "--agent", "exec:/nonexistent/agent-binary", "--sandbox", "none", "--json")
	run("runs", 2, "run", "--env", "crm", "--task", "TASK-001", "--agent", "exec:/nonexistent/agent-binary", "--sandbox", "none", "--runs", "2", "--json")
}
