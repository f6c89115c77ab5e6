package command

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-oracle/oracle/fixtures"
	"github.com/agent-oracle/oracle/oracle"
	"github.com/agent-oracle/oracle/oracle/render"
	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v2"
)

// mixedReport is the JSON report of a check whose cases are unchanged,
// changed, missing, obsolete and in error, read back.
func mixedReport(t *testing.T) *oracle.Report {
	t.Helper()
	dir := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		var out, errOut bytes.Buffer
		Run(context.Background(), append([]string{"oracle", "-C", dir}, args...), fixtures.All, &out, &errOut)
		if args[0] == "check" {
			if err := os.WriteFile(filepath.Join(dir, "report.json"), out.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	run("record", "--env", "crm")
	baselines := filepath.Join(dir, ".silo", "baselines", "crm", "solver")
	edit := func(name, old, new string) {
		t.Helper()
		path := filepath.Join(baselines, name)
		data, err := os.ReadFile(path)
		if err != nil || !bytes.Contains(data, []byte(old)) {
			t.Fatalf("%s: %v, or no %q in it", name, err, old)
		}
		if err := os.WriteFile(path, bytes.Replace(data, []byte(old), []byte(new), 1), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	edit("TASK-002.state-diff.json", `"to": "USR-003"`, `"to": "USR-005"`)       // changed
	edit("TASK-004.result.json", `"verdict": "pass"`, `"verdict": "fail"`)       // a verdict flip
	edit("TASK-003.result.json", `"reward"`, "\n")                               // an error
	for _, f := range []string{"result.json", "state-diff.json", "calls.json"} { // missing
		os.Remove(filepath.Join(baselines, "TASK-005."+f))
	}
	data, err := os.ReadFile(filepath.Join(baselines, "TASK-001.result.json")) // obsolete
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(baselines, "TASK-099.result.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	run("check", "--json", "--env", "crm")
	rep, err := oracle.MergeReports([]string{filepath.Join(dir, "report.json")})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[oracle.Status]bool{}
	for _, cr := range rep.Cases {
		seen[cr.Status] = true
	}
	for _, s := range []oracle.Status{oracle.StatusUnchanged, oracle.StatusChanged, oracle.StatusMissing, oracle.StatusObsolete, oracle.StatusError} {
		if !seen[s] {
			t.Fatalf("the report has no %s case", s)
		}
	}
	return rep
}

// Each report written from the cases as they end (the check's output and
// the files of a report folder) is byte for byte what the renderer of the
// whole report writes, in every format and with the options of both.
func TestCaseReportsWriteTheWholeReport(t *testing.T) {
	rep := mixedReport(t)
	app := &cli.App{Name: "mybin", Commands: []*cli.Command{{Name: "record"}, {Name: "check"}}}
	c := cli.NewContext(app, flag.NewFlagSet("mybin", flag.ContinueOnError), nil)
	options := map[string]render.TextOptions{
		"output":     textOptions(c, &bytes.Buffer{}),
		"report dir": {All: true, MaxValue: 1000, Commands: reportCommands(c)},
	}
	for name, o := range options {
		for _, format := range []string{"text", "markdown", "json", "junit", "html"} {
			t.Run(name+"/"+format, func(t *testing.T) {
				var whole bytes.Buffer
				if format == "text" {
					var buf bytes.Buffer
					if err := render.Text(&buf, rep, o); err != nil {
						t.Fatal(err)
					}
					whole.WriteString(named(c, buf.String()))
				} else if err := writeReport(c, &whole, format, rep); err != nil {
					t.Fatal(err)
				}
				r := newCaseReport(c, format, o)
				defer r.close()
				for _, cr := range rep.Cases {
					if err := r.add(cr); err != nil {
						t.Fatal(err)
					}
				}
				var streamed bytes.Buffer
				if err := r.write(&streamed, withCases(rep, nil)); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(whole.String(), streamed.String()); diff != "" {
					t.Errorf("streamed report differs (-whole +streamed):\n%s", diff)
				}
				// (the JSON report keeps the library's words)
				if format != "json" && strings.Contains(streamed.String(), "oracle record") {
					t.Errorf("the report names oracle's commands, not mybin's")
				}
			})
		}
	}
}
