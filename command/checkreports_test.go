package command

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agent-oracle/oracle/fixtures"
	"github.com/agent-oracle/oracle/oracle"
	"github.com/agent-oracle/oracle/oracle/render"
	"github.com/agent-oracle/oracle/oracle/report"
	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v2"
)

// runMybin runs the binary mybin in the project dir and returns its output.
func runMybin(dir string, args ...string) string {
	var out, errOut bytes.Buffer
	Run(context.Background(), append([]string{"mybin", "-C", dir}, args...), fixtures.All, &out, &errOut, WithName("mybin"))
	return out.String()
}

// mixedProject is a project whose crm cases, checked by the binary mybin,
// are unchanged, changed, missing, obsolete and in error.
func mixedProject(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	run := func(args ...string) { runMybin(dir, args...) }
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
	return dir
}

// readReport reads the JSON report at path and checks that it holds a case
// of every status but nondeterministic.
func readReport(t *testing.T, path string) *report.Report {
	t.Helper()
	rep, err := oracle.MergeReports([]string{path})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[report.Status]bool{}
	for _, cr := range rep.Cases {
		seen[cr.Status] = true
	}
	for _, s := range []report.Status{report.StatusUnchanged, report.StatusChanged, report.StatusMissing, report.StatusObsolete, report.StatusError} {
		if !seen[s] {
			t.Fatalf("the report has no %s case", s)
		}
	}
	return rep
}

// A check writes, in each format of the table, on its output and in the
// files of its report folder (both written from the cases as they end),
// byte for byte what the format writes of the whole report with the
// options of each (JUnit but for its times, which a JSON report does not
// keep), and names the binary's commands, never oracle's.
func TestCheckWritesTheWholeReport(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1767225600") // the page's date, the same for the check and the test
	dir := mixedProject(t)
	app := &cli.App{Name: "mybin"}
	c := cli.NewContext(app, flag.NewFlagSet("mybin", flag.ContinueOnError), nil)
	times := regexp.MustCompile(` time="[0-9.]+"`)
	for _, f := range render.Formats() {
		t.Run(f.Name, func(t *testing.T) {
			reports := filepath.Join(t.TempDir(), "reports")
			output := runMybin(dir, "check", "--env", "crm", "--format", f.Name, "--report-dir", reports)
			rep := readReport(t, filepath.Join(reports, "report.json"))
			file, err := os.ReadFile(filepath.Join(reports, f.File))
			if err != nil {
				t.Fatal(err)
			}
			for what, got := range map[string]string{"output": output, "report dir": string(file)} {
				o := reportOptions(c, &checkOptions{}, &bytes.Buffer{})
				if what == "report dir" {
					// the index links the page of each case whose fresh
					// artifacts the folder holds
					o = reportOptions(c, &checkOptions{}, nil)
					o.CaseLink = func(cr *report.Case) string {
						if _, err := os.Stat(filepath.Join(reports, filepath.FromSlash(casePageLink(cr.Key())))); err != nil {
							return ""
						}
						return casePageLink(cr.Key())
					}
				}
				var whole bytes.Buffer
				if err := f.Write(&whole, rep, o); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(whole.String(), times.ReplaceAllString(got, "")); diff != "" {
					t.Errorf("%s differs from the whole report (-whole +%s):\n%s", what, what, diff)
				}
				if strings.Contains(got, "oracle record") || !strings.Contains(got, "mybin record") {
					t.Errorf("the %s does not name mybin's commands:\n%s", what, got)
				}
			}
		})
	}
}

// TestMergeRendersAsTheUnshardedCheck: the merge of a check's shard reports
// renders every format byte for byte as one unsharded check of the same
// cases (JUnit but for its times, which a JSON report does not keep), with
// changes whose values are objects and arrays (a call the baseline lacks),
// which a report holds indented: a merge once showed them across many
// lines and cut.
func TestMergeRendersAsTheUnshardedCheck(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1767225600")
	dir := mixedProject(t)
	calls := filepath.Join(dir, ".silo", "baselines", "crm", "solver", "TASK-008.calls.json")
	data, err := os.ReadFile(calls)
	if err != nil {
		t.Fatal(err)
	}
	var doc []any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	data, _ = json.MarshalIndent(doc[1:], "", "  ") // the fresh run has a call more, an object
	if err := os.WriteFile(calls, append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	shards := t.TempDir()
	var merge []string
	for i := 1; i <= 2; i++ {
		path := filepath.Join(shards, fmt.Sprintf("shard-%d.json", i))
		if err := os.WriteFile(path, []byte(runMybin(dir, "check", "--env", "crm", "--shard", fmt.Sprintf("%d/2", i), "--json")), 0o644); err != nil {
			t.Fatal(err)
		}
		merge = append(merge, "--merge", path)
	}
	times := regexp.MustCompile(` time="[0-9.]+"`)
	for _, f := range render.Formats() {
		whole := runMybin(dir, "check", "--env", "crm", "--format", f.Name)
		merged := runMybin(dir, append([]string{"check", "--format", f.Name}, merge...)...)
		if f.Name == "junit" {
			whole = times.ReplaceAllString(whole, "")
		}
		if diff := cmp.Diff(whole, merged); diff != "" {
			t.Errorf("%s: the merge differs from the unsharded check (-check +merge):\n%s", f.Name, diff)
		}
		if f.Name == "text" && !strings.Contains(whole, `+ #1 `) {
			t.Errorf("no call added in the text report:\n%s", whole)
		}
	}
}
