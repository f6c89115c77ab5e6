package inputschema

import (
	"bytes"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

func TestCompile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		schema  string
		input   string // validated when the schema compiles
		valid   bool
		wantErr string // a fragment of the compile error; "" when it compiles
	}{
		{name: "object", schema: `{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`, input: `{"id":"A"}`, valid: true},
		{name: "missing property", schema: `{"type":"object","required":["id"]}`, input: `{}`, valid: false},
		// prefixItems is 2020-12: without $schema the draft is 2020-12.
		{name: "draft 2020-12 by default", schema: `{"prefixItems":[{"type":"integer"}]}`, input: `["x"]`, valid: false},
		// draft-07 ignores prefixItems, so the same input passes.
		{name: "$schema names another draft", schema: `{"$schema":"http://json-schema.org/draft-07/schema#","prefixItems":[{"type":"integer"}]}`, input: `["x"]`, valid: true},
		{name: "not JSON", schema: `{"type":`, wantErr: "input schema is not JSON"},
		{name: "not a schema", schema: `{"type":"thing"}`, wantErr: "type"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, err := Compile([]byte(tc.schema))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Compile(%s) = %v, want an error containing %q", tc.schema, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Compile(%s): %v", tc.schema, err)
			}
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(tc.input)))
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Validate(inst) == nil; got != tc.valid {
				t.Errorf("%s valid against %s = %v, want %v", tc.input, tc.schema, got, tc.valid)
			}
		})
	}
}
