package runner

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/agent-oracle/oracle/internal/inputschema"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestCallsMatchTheirSchema: the calls.json goldens and every committed
// calls.json baseline match docs/calls.schema.json.
func TestCallsMatchTheirSchema(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("..", "docs", "calls.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	schema, err := inputschema.Compile(text)
	if err != nil {
		t.Fatal(err)
	}
	goldens, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.calls.json"))
	baselines, _ := filepath.Glob(filepath.Join("..", ".silo", "baselines", "*", "*", "*.calls.json"))
	if len(goldens) == 0 || len(baselines) == 0 {
		t.Fatalf("%d goldens and %d baselines of calls.json, want some of each", len(goldens), len(baselines))
	}
	for _, path := range append(goldens, baselines...) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if err := schema.Validate(inst); err != nil {
			t.Errorf("%s: %v", path, err)
		}
	}
	bad, _ := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(`[{"tool":"a","input":{},"output":1,"error":{"code":"c","message":"m"}}]`)))
	if schema.Validate(bad) == nil {
		t.Error("a call with both output and error matches the schema")
	}
}
