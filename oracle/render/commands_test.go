package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/agent-oracle/oracle/oracle/change"
	"github.com/agent-oracle/oracle/oracle/report"
)

// TestReportsSuggestOnlyTheCallersCommands: the renderers know no flag;
// they suggest the commands the caller gives, and none when it gives none,
// and they give the program the caller's name, in every format but JSON
// (whose cases carry no suggestion and which has no title).
func TestReportsSuggestOnlyTheCallersCommands(t *testing.T) {
	r := &report.Report{
		Summary: report.Summary{Total: 3, Missing: 1, Obsolete: 1, Changed: 1},
		Cases: []*report.Case{
			{Case: "e/a/T-1", Env: "e", Agent: "a", Task: "T-1", Status: report.StatusMissing},
			{Case: "e/a/T-2", Env: "e", Agent: "a", Task: "T-2", Status: report.StatusObsolete},
			{Case: "e/a/T-3", Env: "e", Agent: "a", Task: "T-3", Status: report.StatusChanged,
				Files: []*change.FileDiff{{File: "calls.json", State: change.FileMissing}}},
		},
	}
	cmds := Commands{Record: "desk record", Prune: "desk record --prune"}
	suggested := []string{"no baseline; run desk record to freeze it", "baseline with no case; desk record --prune removes it"}
	titles := map[string]string{
		"text": "", "markdown": "### ❌ desk check", "junit": `<testsuites name="desk check"`, "html": "<title>desk check: ",
	}
	for _, f := range Formats() {
		if f.Name == "json" {
			continue
		}
		var with, without bytes.Buffer
		if err := f.Write(&with, r, Options{Program: "desk", Commands: cmds}); err != nil {
			t.Fatal(err)
		}
		if err := f.Write(&without, r, Options{Program: "desk"}); err != nil {
			t.Fatal(err)
		}
		for _, w := range append(suggested, titles[f.Name]) {
			if !strings.Contains(with.String(), w) {
				t.Errorf("%s report with commands lacks %q:\n%s", f.Name, w, with.String())
			}
		}
		if f.Name != "html" && !strings.Contains(with.String(), "not in the baseline; desk record adds it") {
			t.Errorf("%s report does not name the program in a missing file's note:\n%s", f.Name, with.String())
		}
		if s := without.String(); strings.Contains(s, "record --prune") || strings.Contains(s, "to freeze it") || !strings.Contains(s, "baseline with no case") {
			t.Errorf("%s report without commands suggests one:\n%s", f.Name, s)
		}
		if strings.Contains(with.String(), "oracle") {
			t.Errorf("%s report of the program desk names oracle:\n%s", f.Name, with.String())
		}
	}
}
