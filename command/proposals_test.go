package command

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-oracle/oracle/internal/redact"
	"github.com/agent-oracle/oracle/oracle"
	"github.com/fatih/color"
	"github.com/google/go-cmp/cmp"
)

func plainStyle() *style {
	s := &style{good: color.New(), bad: color.New(), warn: color.New(), dim: color.New(), bold: color.New(), hi: color.New()}
	for _, c := range []*color.Color{s.good, s.bad, s.warn, s.dim, s.bold, s.hi} {
		c.DisableColor()
	}
	return s
}

// TestPrintProposals: the rules proposed for the refused cases of an
// environment come as one list, each rule once, to paste into its
// manifest or, when it declares its rules in code, as Go; an environment
// whose runs no rule makes agree is told to fix it, one without a manifest
// that it has one to make; what an agent wrote into a path reaches the
// terminal escaped.
func TestPrintProposals(t *testing.T) {
	id := redact.Whole("calls", "/*/output/id")
	at := redact.Match("calls", "/*/output/at", `[0-9]+\.[0-9]+`, "[n]")
	evil := redact.Whole("calls", "/*/input/\u202etxt.exe")
	manifest := ".silo/environments/a/silo.environment.json"
	rep := &oracle.RecordReport{Cases: []oracle.RecordedCase{
		{Case: "a/solver/TASK-001", Status: oracle.RecordRefused, Proposal: &oracle.Proposal{Rules: []redact.Rule{id, at}, Stable: true, Manifest: manifest}},
		{Case: "a/solver/TASK-002", Status: oracle.RecordRefused, Proposal: &oracle.Proposal{Rules: []redact.Rule{at, evil}, Stable: true, Manifest: manifest}},
		{Case: "a/solver/TASK-003", Status: oracle.RecordWrote},
		{Case: "b/solver/TASK-001", Status: oracle.RecordRefused, Proposal: &oracle.Proposal{Rules: []redact.Rule{at}, Stable: true, InCode: true}},
		{Case: "c/solver/TASK-001", Status: oracle.RecordRefused, Proposal: &oracle.Proposal{Rules: []redact.Rule{}, Manifest: "x"}},
		{Case: "d/solver/TASK-001", Status: oracle.RecordRefused, Proposal: &oracle.Proposal{Rules: []redact.Rule{id}, Stable: true, Manifest: ".silo/environments/d/silo.environment.json"}},
	}}
	var out bytes.Buffer
	project := t.TempDir()
	os.MkdirAll(filepath.Join(project, ".silo", "environments", "a"), 0o755)
	os.WriteFile(filepath.Join(project, manifest), []byte("{}"), 0o644)
	printProposals(&out, plainStyle(), rep, project)
	want := `
a: the runs agree with these redactions; nothing is applied. Read them first (a value that differs between runs may be one the gate should check), then add them to the "redact" list of .silo/environments/a/silo.environment.json:
[
  {
    "artifact": "calls",
    "path": "/*/output/id"
  },
  {
    "artifact": "calls",
    "path": "/*/output/at",
    "pattern": "[0-9]+\\.[0-9]+",
    "replace": "[n]"
  },
  {
    "artifact": "calls",
    "path": "/*/input/\u202etxt.exe"
  }
]

b: the runs agree with these redactions; nothing is applied. Read them first (a value that differs between runs may be one the gate should check), then add them to the Redact list of b's Definition:
	env.RedactMatch("calls", "/*/output/at", ` + "`[0-9]+\\.[0-9]+`" + `, "[n]"),

c: no redaction makes the runs agree (c/solver/TASK-001): they differ in their shape, not only in values; fix the environment, or stop freezing the artifact (the manifest's "baselines"; docs/redaction.md)

d: the runs agree with these redactions; nothing is applied. Read them first (a value that differs between runs may be one the gate should check), then add them to the "redact" list of .silo/environments/d/silo.environment.json (a file to make, with "name", "entrypoint" and "tools" besides: docs/redaction.md):
[
  {
    "artifact": "calls",
    "path": "/*/output/id"
  }
]
`
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("proposals (-want +got):\n%s", diff)
	}
	if strings.ContainsRune(out.String(), '\u202e') {
		t.Error("a bidirectional override reached the output")
	}
	if got := goRule(redact.Whole("result", "/a\u202e")); got != `env.RedactWhole("result", "/a\u202e")` {
		t.Errorf("goRule = %s", got)
	}
}
