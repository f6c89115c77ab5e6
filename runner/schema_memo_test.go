package runner

import (
	"testing"

	"github.com/agent-oracle/oracle/env"
)

// TestValidInputsRemembered: an input found valid is remembered for its
// schema only, an invalid one never is, and a remembered input is valid.
func TestValidInputsRemembered(t *testing.T) {
	strict := env.ToolSpec{Name: "strict", InputSchema: []byte(`{"type":"object","properties":{"n":{"type":"integer","maximum":3}},"required":["n"],"additionalProperties":false}`)}
	loose := env.ToolSpec{Name: "loose", InputSchema: []byte(`{"type":"object","properties":{"n":{"type":"integer","maximum":3}},"required":["n"],"additionalProperties":true}`)}
	tests := []struct {
		tool  env.ToolSpec
		input string
		valid bool
	}{
		{strict, `{"n":2}`, true},
		{strict, `{"n":2}`, true}, // remembered
		{strict, `{"n":9}`, false},
		{strict, `{"n":9}`, false}, // never remembered
		{loose, `{"n":2,"x":1}`, true},
		{strict, `{"n":2,"x":1}`, false}, // valid for loose, not for strict
	}
	for i, tt := range tests {
		got := validateInput(tt.tool, []byte(tt.input))
		if (got == nil) != tt.valid {
			t.Errorf("%d: validateInput(%s, %s) = %v, want valid %v", i, tt.tool.Name, tt.input, got, tt.valid)
		}
	}
	s, err := compileSchema(strict.InputSchema)
	if err != nil {
		t.Fatal(err)
	}
	if !validInputs.has(s, []byte(`{"n":2}`)) || validInputs.has(s, []byte(`{"n":9}`)) {
		t.Errorf("the memo holds what it should not or misses what it should")
	}
}
