package oracle

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/env"
)

// TestRedactionFindings: validate judges a rule by the baselines that hold
// the artifact it names, and only once there are some; a rule of an
// artifact not frozen, and rules in two places, are findings too.
func TestRedactionFindings(t *testing.T) {
	project := t.TempDir()
	store := baseline.Open(project)
	typo := append([]env.Redaction{env.RedactWhole("calls", "/*/outptu/id")}, nonce...)
	e := redacting{newLedger(t, ledgerOpts{tasks: 2, flaky: true}), typo}
	codes := func() []string {
		var out []string
		for _, f := range RedactionFindings(project, e, store) {
			out = append(out, string(f.Level)+" "+f.Code+": "+f.Message)
		}
		return out
	}
	if got := codes(); got != nil {
		t.Errorf("before the first record: %q", got)
	}
	s := selected(t, Selection{}, e)
	if err := s.FreezeFiles(project, nil); err != nil {
		t.Fatal(err)
	}
	if rep, err := Record(context.Background(), store, s.Cases, Selection{}, RecordOptions{}); err != nil || rep.Count(RecordWrote) != 2 {
		t.Fatalf("record: %v %+v", err, rep)
	}
	want := "warning redact_unused: redact[0] (calls /*/outptu/id) selects nothing in the calls of 2 cases; fix the path or remove the rule"
	if got := codes(); len(got) != 1 || got[0] != want {
		t.Errorf("after record: %q", got)
	}

	manifest := filepath.Join(project, env.ManifestPath("ledger"))
	os.MkdirAll(filepath.Dir(manifest), 0o755)
	os.WriteFile(manifest, []byte(`{"name":"ledger","entrypoint":".","baselines":["result","state-diff"]}`), 0o644)
	if got := codes(); len(got) != 1 || !strings.HasPrefix(got[0], "warning redact_not_frozen: redact[0] (calls /*/outptu/id) names calls, which ledger does not freeze") {
		t.Errorf("calls not frozen: %q", got)
	}
	os.WriteFile(manifest, []byte(`{"name":"ledger","entrypoint":".","redact":[{"artifact":"result","path":"/x"}]}`), 0o644)
	if got := codes(); len(got) != 1 || !strings.HasPrefix(got[0], "error redact_invalid: ") || !strings.Contains(got[0], "declare them in one place") {
		t.Errorf("rules in two places: %q", got)
	}
	os.WriteFile(manifest, []byte(`{"name":"ledger","entrypoint":".","redact":[]}`), 0o644)
	if got := codes(); got != nil {
		t.Errorf("a manifest that does not parse is validate's manifest_invalid, not a redaction finding: %q", got)
	}
}
