package env

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// A Definition's Redact is checked as a manifest's list is, and New's
// environment declares it through RedactingEnvironment, as given and a
// copy each time.
func TestDefinitionRedact(t *testing.T) {
	def := func(rules ...Redaction) Definition[counters] {
		return Definition[counters]{
			Name:      "box",
			TaskFiles: fstest.MapFS{"tasks/TASK-001.json": {Data: []byte(oneTask)}},
			NewState:  func(Task) (*counters, error) { return newCounters(), nil },
			Redact:    rules,
		}
	}
	for _, tt := range []struct {
		name  string
		rules []Redaction
		err   string
	}{
		{"unknown artifact", []Redaction{RedactWhole("trace", "/a")}, `environment box: redact[0].artifact: unknown artifact "trace"`},
		{"pattern", []Redaction{RedactWhole("calls", "/a"), RedactMatch("result", "/agentOutput", "(", "x")}, "environment box: redact[1].pattern: does not compile as RE2"},
		{"path", []Redaction{RedactWhole("calls", "a")}, `environment box: redact[0].path: "a" is not a JSON Pointer`},
		{"twice", []Redaction{RedactWhole("calls", "/a"), RedactWhole("calls", "/a")}, "environment box: redact[1]: is the same rule as redact[0]"},
	} {
		if _, err := New(def(tt.rules...)); err == nil || !strings.HasPrefix(err.Error(), tt.err) {
			t.Errorf("%s: New = %v, want %q", tt.name, err, tt.err)
		}
	}

	rules := []Redaction{RedactWhole("calls", "/*/output/id"), RedactMatch("result", "/agentOutput", "[0-9]+", "[n]")}
	e, err := New(def(rules...))
	if err != nil {
		t.Fatal(err)
	}
	r, ok := e.(RedactingEnvironment)
	if !ok {
		t.Fatal("an environment New made is not a RedactingEnvironment")
	}
	got := r.Redactions()
	if diff := cmp.Diff(rules, got); diff != "" {
		t.Errorf("Redactions (-want +got):\n%s", diff)
	}
	got[0].Path = "/changed"
	rules[1].Path = "/changed"
	if again := r.Redactions(); again[0].Path != "/*/output/id" || again[1].Path != "/agentOutput" {
		t.Errorf("Redactions shares its list: %v", again)
	}
	none, err := New(def())
	if err != nil {
		t.Fatal(err)
	}
	if got := none.(RedactingEnvironment).Redactions(); got != nil {
		t.Errorf("no rules: Redactions = %v, want nil", got)
	}
}
