// Package inputschema compiles the JSON Schemas of tool inputs. It is the one
// place the project hands a schema to santhosh-tekuri/jsonschema: env's
// Validate reports a schema that does not compile, and the runner validates
// every call against the compiled schema before the tool runs. It is
// internal so that the schema library's types stay out of the authoring
// contract: an author writes a schema as text (env.Tool.InputSchema, or with
// package env/schema) and never sees what it compiles to.
package inputschema

import (
	"bytes"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Compile compiles a tool's input schema: JSON Schema, draft 2020-12 unless
// its $schema names another draft. Compile does not cache: a caller that
// compiles the same schema often keeps the result, as the runner does.
func Compile(text []byte) (*jsonschema.Schema, error) {
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
