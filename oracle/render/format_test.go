package render

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent-oracle/oracle/oracle/change"
	"github.com/agent-oracle/oracle/oracle/report"
	"github.com/google/go-cmp/cmp"
)

// mixedReport is a report of two environments whose cases have every
// status, a divergence, a missing file, times, violations and a shard.
func mixedReport() *report.Report {
	r := sampleReport()
	plain := func(env, task string, st report.Status) *report.Case {
		return &report.Case{Case: env + "/solver/" + task, Env: env, Agent: "solver", Task: task, Status: st, Elapsed: 1250 * time.Millisecond}
	}
	changed := plain("crm", "TASK-005", report.StatusChanged)
	changed.Files = []*change.FileDiff{{File: "calls.json", State: change.FileMissing}}
	changed.Violations = []string{"deleted a customer"}
	errored := plain("crm", "TASK-006", report.StatusError)
	errored.Error = "baseline x is not JSON; run oracle record to write it again"
	diverged := plain("desk", "TASK-001", report.StatusNondeterministic)
	diverged.Divergence = &report.Divergence{Run: 2, Diff: &change.FileDiff{File: "result.json", State: change.FileChanged,
		Changes: []change.Change{{Op: change.ChangeReplace, Path: "/reward", From: []byte("1"), To: []byte("0")}}}}
	r.Cases = append(r.Cases, changed, errored, plain("crm", "TASK-099", report.StatusObsolete), diverged, plain("desk", "TASK-002", report.StatusUnchanged))
	r.Summary = report.Summary{Total: 9, Unchanged: 2, Changed: 3, Missing: 1, Obsolete: 1, Nondeterministic: 1, Error: 1, Regressions: 1, Violations: 1}
	r.Shard = "1/2"
	r.Selection = &report.Selection{Envs: []string{}, Agents: []string{}, Tasks: []string{}, Cases: 16}
	r.FormatVersion = report.Format
	return r
}

// TestFormatsStreamTheWholeReport: every format of the table writes from
// the cases as they end (New, Case, Finish) the bytes it writes of the
// whole report (Write), for reports with no case, unchanged cases only and
// every status, with the options of a check's output and of a report folder.
func TestFormatsStreamTheWholeReport(t *testing.T) {
	paint := func(name string) func(...any) string {
		return func(a ...any) string { return "<" + name + ">" + fmt.Sprint(a...) + "</" + name + ">" }
	}
	colors := Colors{Good: paint("good"), Bad: paint("bad"), Warn: paint("warn"), Dim: paint("dim"), Bold: paint("bold")}
	cmds := Commands{Record: "desk record", Prune: "desk record --prune"}
	options := map[string]Options{
		"output":     {Program: "desk", Commands: cmds, Colors: colors},
		"report dir": {Program: "desk", Commands: cmds, All: true, MaxValue: 1000},
		"bare":       {},
	}
	unchanged := sampleReport()
	unchanged.Cases = unchanged.Cases[3:]
	unchanged.Summary = report.Summary{Total: 1, Unchanged: 1}
	reports := map[string]*report.Report{"empty": {Cases: []*report.Case{}}, "unchanged": unchanged, "mixed": mixedReport(), "gate": gateReport(t)}
	for _, f := range Formats() {
		for oname, o := range options {
			for rname, r := range reports {
				t.Run(f.Name+"/"+oname+"/"+rname, func(t *testing.T) {
					var whole bytes.Buffer
					if err := f.Write(&whole, r, o); err != nil {
						t.Fatal(err)
					}
					w := f.New(o)
					defer w.Close()
					for _, cr := range r.Cases {
						if err := w.Case(cr); err != nil {
							t.Fatal(err)
						}
					}
					var streamed bytes.Buffer
					if err := w.Finish(&streamed, withCases(r, nil)); err != nil {
						t.Fatal(err)
					}
					if whole.Len() == 0 {
						t.Fatal("the whole report is empty")
					}
					if diff := cmp.Diff(whole.String(), streamed.String()); diff != "" {
						t.Errorf("streamed report differs (-whole +streamed):\n%s", diff)
					}
				})
			}
		}
	}
}

// TestFormatTable: every format has a name and a report file of its own and
// both writers, and Lookup finds each by name and names them all for an
// unknown one.
func TestFormatTable(t *testing.T) {
	var names, files []string
	for _, f := range Formats() {
		if f.Name == "" || f.File == "" || f.New == nil || f.Write == nil {
			t.Errorf("format %+v is incomplete", f)
		}
		if slices.Contains(names, f.Name) || slices.Contains(files, f.File) {
			t.Errorf("format %s: its name or file %s is another format's", f.Name, f.File)
		}
		names, files = append(names, f.Name), append(files, f.File)
		if got, err := Lookup(f.Name); err != nil || got.File != f.File {
			t.Errorf("Lookup(%q) = %+v, %v", f.Name, got, err)
		}
	}
	if !slices.Equal(Files(), files) {
		t.Errorf("Files() = %v, want %v", Files(), files)
	}
	if got, want := FormatList(), "text, json, markdown, junit or html"; got != want {
		t.Errorf("FormatList() = %q, want %q", got, want)
	}
	if _, err := Lookup("yaml"); err == nil || !strings.Contains(err.Error(), FormatList()) {
		t.Errorf("Lookup(yaml) = %v, want an error listing %s", err, FormatList())
	}
}
