package render

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/agent-oracle/oracle/oracle"
)

// TestReportsSuggestOnlyTheCallersCommands: the renderers know no program
// name and no flag; they suggest the commands the caller gives, and none
// when it gives none.
func TestReportsSuggestOnlyTheCallersCommands(t *testing.T) {
	r := &oracle.Report{
		Summary: oracle.Summary{Total: 2, Missing: 1, Obsolete: 1},
		Cases: []*oracle.CaseReport{
			{Case: "e/a/T-1", Env: "e", Agent: "a", Task: "T-1", Status: oracle.StatusMissing},
			{Case: "e/a/T-2", Env: "e", Agent: "a", Task: "T-2", Status: oracle.StatusObsolete},
		},
	}
	cmds := Commands{Record: "desk record", Prune: "desk record --prune"}
	tests := []struct {
		name  string
		write func(w io.Writer, cmds Commands) error
		want  []string
	}{
		{"text", func(w io.Writer, cmds Commands) error { return Text(w, r, TextOptions{Commands: cmds}) },
			[]string{"no baseline; run desk record to freeze it", "baseline with no case; desk record --prune removes it"}},
		{"markdown", func(w io.Writer, cmds Commands) error { return Markdown(w, r, cmds) },
			[]string{"no baseline; run desk record to freeze it", "baseline with no case; desk record --prune removes it"}},
		{"html", func(w io.Writer, cmds Commands) error { return HTML(w, r, cmds) },
			[]string{"no baseline; run desk record to freeze it", "baseline with no case; desk record --prune removes it"}},
		{"junit", func(w io.Writer, cmds Commands) error { return JUnit(w, r, cmds) },
			[]string{"no baseline; run desk record to freeze it", "baseline with no case; desk record --prune removes it"}},
	}
	for _, tt := range tests {
		var with, without bytes.Buffer
		if err := tt.write(&with, cmds); err != nil {
			t.Fatal(err)
		}
		if err := tt.write(&without, Commands{}); err != nil {
			t.Fatal(err)
		}
		for _, w := range tt.want {
			if !strings.Contains(with.String(), w) {
				t.Errorf("%s report with commands lacks %q:\n%s", tt.name, w, with.String())
			}
		}
		if s := without.String(); strings.Contains(s, "record") || strings.Contains(s, "--prune") || !strings.Contains(s, "baseline with no case") {
			t.Errorf("%s report without commands suggests one:\n%s", tt.name, s)
		}
	}
}
