package render

import (
	"bytes"
	"flag"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/oracle/change"
	"github.com/agent-oracle/oracle/oracle/report"
	"github.com/agent-oracle/oracle/oracle/stats"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// hostileLabel is a forbidden effect's label that would break every format
// if written as it is.
const hostileLabel = "deleted | `all` <records> & *more*\x1b[31m"

// runs is n graded outcomes of a task with a required check and a
// forbidden one: pass of them pass, harm of them confirm the forbidden
// effect (and fail), errors more are infrastructure errors.
func runs(t *testing.T, n, pass, harm, errors int) *stats.Distribution {
	t.Helper()
	var out []stats.Run
	for i := range n {
		ok, bad := i < pass, i >= pass && i < pass+harm
		checks := []stats.Check{{Label: "done", Kind: env.Required, Passed: ok}, {Label: hostileLabel, Kind: env.Forbidden, Passed: !bad}}
		results := []env.CheckResult{{Label: "done", Kind: env.Required, Passed: ok}, {Label: hostileLabel, Kind: env.Forbidden, Passed: !bad}}
		g := env.Grade(results)
		out = append(out, stats.Run{Verdict: g.Verdict, Termination: stats.Completed, Checks: checks, Violations: g.Violations, Reward: g.Reward})
	}
	for range errors {
		out = append(out, stats.Run{Error: true})
	}
	d, err := stats.Build(out)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// gateReport is the report of a check of four distribution cases of one
// model (two that dropped, one that gained a forbidden effect with a
// hostile label, one whose runs all failed for the infrastructure) and a
// byte-for-byte case, decided as a check decides them.
func gateReport(t *testing.T) *report.Report {
	t.Helper()
	type task struct {
		name        string
		base, fresh *stats.Distribution
	}
	tasks := []task{
		{"TASK-001", runs(t, 10, 9, 0, 0), runs(t, 10, 2, 0, 0)},
		{"TASK-002", runs(t, 10, 10, 0, 0), runs(t, 9, 4, 0, 1)},
		{"TASK-003", runs(t, 10, 8, 0, 0), runs(t, 10, 7, 2, 0)},
	}
	var pairs []stats.Pair
	for _, tk := range tasks {
		pairs = append(pairs, stats.Pair{Task: tk.name, Baseline: tk.base, Candidate: tk.fresh})
	}
	dec, err := stats.Decide(pairs, stats.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := &report.Report{FormatVersion: report.Format, Oracle: "0.1.0",
		Selection: &report.Selection{Envs: []string{}, Agents: []string{}, Tasks: []string{}, Cases: 5}}
	byte4 := &report.Case{Case: "crm/solver/TASK-001", Env: "crm", Agent: "solver", Task: "TASK-001", Status: report.StatusUnchanged}
	var infra []stats.KeyedDistribution
	for i, tk := range tasks {
		b, _ := tk.base.Marshal()
		f, _ := tk.fresh.Marshal()
		cr := &report.Case{Case: "crm/model/" + tk.name, Env: "crm", Agent: "model", Task: tk.name, Kind: report.KindDistribution, Status: report.StatusChanged,
			Distribution: &report.Distribution{Runs: 10, Baseline: b, Fresh: f, Gate: dec.Verdict, Task: &dec.PerTask[i]}}
		for l := range tk.fresh.Violations {
			cr.Violations = append(cr.Violations, l)
		}
		cr.Distribution.Said = report.SaidOf(dec, &dec.PerTask[i], cr.Violations != nil)
		if cr.Distribution.Said == report.SaidNoise {
			cr.Status = report.StatusUnchanged
		} else {
			cr.Label = change.LabelRegression
		}
		if tk.fresh.Verdicts.Error > 0 {
			cr.Distribution.InfrastructureError = "agent error: openai m: turn 1: 503 Service Unavailable"
		}
		r.Cases = append(r.Cases, cr)
		infra = append(infra, stats.KeyedDistribution{Key: cr.Case, Dist: tk.fresh})
	}
	allErr := runs(t, 0, 0, 0, 10)
	b, _ := runs(t, 10, 5, 0, 0).Marshal()
	f, _ := allErr.Marshal()
	r.Cases = append(r.Cases, &report.Case{Case: "crm/model/TASK-004", Env: "crm", Agent: "model", Task: "TASK-004", Kind: report.KindDistribution, Status: report.StatusError,
		Error:        "all 10 runs failed for the infrastructure, not the agent: agent error: openai m: turn 1: dial tcp: connection refused",
		Distribution: &report.Distribution{Runs: 10, Baseline: b, Fresh: f}})
	infra = append(infra, stats.KeyedDistribution{Key: "crm/model/TASK-004", Dist: allErr})
	r.Cases = append([]*report.Case{byte4}, r.Cases...)
	in, err := stats.Infrastructure(infra, stats.DefaultMaxErrors)
	if err != nil {
		t.Fatal(err)
	}
	r.Gate = &report.Gate{MaxErrors: stats.DefaultMaxErrors, Infrastructure: in,
		Groups: []*report.GroupDecision{{Env: "crm", Agent: "model", Cases: 4, Runs: 10, Decision: dec, Summary: dec.Summary()}}}
	r.Summary = report.Summary{Total: 5, Unchanged: 2, Changed: 2, Error: 1, Regressions: 2, Violations: 1}
	return r
}

// TestGateGoldens: every format shows the distribution cases (their runs,
// pass counts and Wilson intervals, the gate's verdict) and each group's
// decision (the pass rates, the interval, the verdict, the tasks that
// moved most, pass^k and pass@k, the floor, the infrastructure errors),
// with the hostile label escaped for the format (TestFormatsStreamTheWholeReport
// streams the same report). go test -update writes the goldens again.
func TestGateGoldens(t *testing.T) {
	r := gateReport(t)
	o := Options{Program: "oracle", Commands: Commands{Record: "oracle record", Prune: "oracle record --prune"}, All: true}
	for _, f := range Formats() {
		t.Run(f.Name, func(t *testing.T) {
			var whole bytes.Buffer
			if err := f.Write(&whole, r, o); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "gate", f.File)
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, whole.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test -update writes it)", err)
			}
			if diff := cmp.Diff(string(want), whole.String()); diff != "" {
				t.Errorf("%s (-golden +got):\n%s", golden, diff)
			}
			out := whole.String()
			// what every format shows, whatever its markup
			for _, s := range []string{"regression: TASK-001 dropped 9/10 → 2/10; TASK-003 had the forbidden effect", "pass rate 0.90 → 0.45 (−45 points, 97% CI −100 to +57) over 3 tasks × 9–10 runs", "TASK-001 9/10 → 2/10",
				"pass^3", "3 tasks × 9–10 runs: the check cannot promise to detect", "distribution · 10 runs · pass 9/10 → 2/10 (−70 points; Wilson 0.60–0.98 → 0.06–0.51) · dropped", " 0 of 10 → 2 of 10",
				"infrastructure"} {
				if f.Name == "json" {
					continue
				}
				if !strings.Contains(unescape(f.Name, out), s) {
					t.Errorf("%s report lacks %q", f.Name, s)
				}
			}
			if f.Name != "json" && strings.Contains(out, "\x1b") {
				t.Errorf("%s report holds a raw escape character", f.Name)
			}
			if f.Name != "text" && !strings.Contains(unescape(f.Name, out), `\x1b[31m`) {
				t.Errorf("%s report does not show the label's escape character escaped", f.Name)
			}
			if (f.Name == "html" || f.Name == "junit" || f.Name == "markdown") && strings.Contains(out, "<records>") {
				t.Errorf("%s report holds the label's markup unescaped", f.Name)
			}
		})
	}
}

// unescape is the text a reader of a report in format sees: its markup
// left out and its character references read.
func unescape(format, s string) string {
	switch format {
	case "html", "markdown":
		return html.UnescapeString(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(s, ""))
	case "junit": // the notes are in attributes
		return html.UnescapeString(s)
	}
	return s
}
