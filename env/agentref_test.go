package env

import (
	"strings"
	"testing"
)

// A manifest's agent whose reference is a scheme of Schemes with no ARG is
// refused, with the scheme's example.
func TestDeclaredAgentNeedsItsArg(t *testing.T) {
	for _, s := range Schemes {
		err := checkAgents(map[string]string{"solver": s.Prefix()})
		if err == nil || !strings.Contains(err.Error(), s.Ref(s.Example)) {
			t.Errorf("%s: %v; want an error giving %s", s.Prefix(), err, s.Ref(s.Example))
		}
	}
	if err := checkAgents(map[string]string{"solver": "module:solver.agent.ts", "model": "openai:gpt-4o"}); err != nil {
		t.Errorf("references with their ARG: %v", err)
	}
}
