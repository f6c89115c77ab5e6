package env

import (
	"bytes"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// CompileSchema compiles a tool's input schema: JSON Schema, draft 2020-12
// unless its $schema names another draft. The runner validates every call
// against the compiled schema before the tool runs, and Validate reports a
// schema that does not compile. CompileSchema does not cache: a caller that
// compiles the same schema often keeps the result, as the runner does.
func CompileSchema(text []byte) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(text))
	if err != nil {
		return nil, fmt.Errorf("input schema is not JSON: %w", err)
	}
	comp := jsonschema.NewCompiler()
	comp.DefaultDraft(jsonschema.Draft2020)
	if err := comp.AddResource("tool-input.json", doc); err != nil {
		return nil, err
	}
	return comp.Compile("tool-input.json")
}
