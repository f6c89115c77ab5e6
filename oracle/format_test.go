package oracle

import (
	"bytes"
	"strings"
	"testing"
)

// TestReportsSuggestOnlyTheCallersCommands: the library knows no program
// name and no flag; the text and Markdown reports suggest the commands the
// caller gives, and none when it gives none.
func TestReportsSuggestOnlyTheCallersCommands(t *testing.T) {
	r := &Report{Cases: []*CaseReport{
		{Case: "e/a/T-1", Status: StatusMissing},
		{Case: "e/a/T-2", Status: StatusObsolete},
	}}
	r.finish()
	cmds := Commands{Record: "desk record", Prune: "desk record --prune"}
	tests := []struct {
		name  string
		write func(w *bytes.Buffer, cmds Commands) error
		want  []string
	}{
		{"text", func(w *bytes.Buffer, cmds Commands) error { return WriteText(w, r, TextOptions{Commands: cmds}) },
			[]string{"no baseline; run desk record to freeze it", "baseline with no case; desk record --prune removes it"}},
		{"markdown", func(w *bytes.Buffer, cmds Commands) error { return WriteMarkdown(w, r, cmds) },
			[]string{"no baseline: run `desk record`", "baseline with no case: `desk record --prune` removes it"}},
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
