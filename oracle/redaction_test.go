package oracle

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/internal/redact"
	"github.com/agent-oracle/oracle/oracle/change"
	"github.com/agent-oracle/oracle/oracle/report"
	"github.com/agent-oracle/oracle/runner"
	"github.com/google/go-cmp/cmp"
)

// redacting is an environment that declares its redactions by
// implementing env.RedactingEnvironment, as one that reaches the runner
// another way than env.New does.
type redacting struct {
	env.Environment
	rules []env.Redaction
}

func (r redacting) Redactions() []env.Redaction { return r.rules }

// nonce are the rules that redact the flaky ledger's nonce, a scalar of
// its state that changes every rollout.
var nonce = []env.Redaction{env.RedactWhole("state-diff", "/scalars/0/from"), env.RedactWhole("state-diff", "/scalars/0/to")}

// withRules are the cases of e with their files and rules set as
// FreezeFiles sets them, in a project without manifests.
func withRules(t *testing.T, e env.Environment) CaseStream {
	t.Helper()
	s := selected(t, Selection{}, e)
	if err := s.FreezeFiles(t.TempDir(), nil); err != nil {
		t.Fatal(err)
	}
	return s.Cases
}

// TestRedactedCases: a case whose runs differ only where its rules redact
// is recorded with markers and checked unchanged, counting what the rules
// hid; without the rules it is refused, with the rules proposed.
func TestRedactedCases(t *testing.T) {
	ctx := context.Background()
	store := baseline.Open(t.TempDir())
	flaky := newLedger(t, ledgerOpts{tasks: 2, flaky: true})

	rep, err := Record(ctx, store, withRules(t, flaky), Selection{}, RecordOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, rc := range rep.Cases {
		want := &Proposal{Rules: nonce, Stable: true, Manifest: ".silo/environments/ledger/silo.environment.json"}
		if rc.Status != RecordRefused || !cmp.Equal(rc.Proposal, want) {
			t.Errorf("without rules: %s %s, proposal %+v", rc.Case, rc.Status, rc.Proposal)
		}
	}

	e := redacting{flaky, nonce}
	rep, err = Record(ctx, store, withRules(t, e), Selection{}, RecordOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Count(RecordWrote) != 2 {
		t.Fatalf("with rules: %+v", rep.Cases)
	}
	k := baseline.Key{Env: "ledger", Agent: "solver", Task: "TASK-001"}
	frozen, err := store.Read(k)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(frozen.StateDiff, []byte(`"from": "[redacted: number]"`)) {
		t.Errorf("the baseline holds no marker:\n%s", frozen.StateDiff)
	}

	res, err := checkAll(ctx, store, withRules(t, e), Selection{}, Options{Repeat: 3})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Report.Summary
	if s.Unchanged != 2 || s.RedactedCases != 2 || s.RedactedDiffer != 4 {
		t.Errorf("check: %+v", s)
	}
	for _, cr := range res.Report.Cases {
		if r := cr.Redacted; r == nil || r.Values != 2 || r.Differ == nil || *r.Differ != 2 || r.Shown != nil {
			t.Errorf("%s: redacted %+v", cr.Case, r)
		}
	}

	// once: how many redacted values differ is not known
	res, err = checkAll(ctx, store, withRules(t, e), Selection{}, Options{Repeat: 1, ShowRedacted: true})
	if err != nil {
		t.Fatal(err)
	}
	cr := res.Report.Cases[0]
	if r := cr.Redacted; r == nil || r.Values != 2 || r.Differ != nil || len(r.Shown) != 2 || r.Shown[0].Later != "" ||
		r.Shown[0].File != runner.StateDiffFile || r.Shown[0].Pointer != "/scalars/0/from" || r.Shown[0].Value != `"[redacted: number]"` {
		t.Errorf("one run, shown: %+v", cr.Redacted)
	}
	if res.Report.Summary.RedactedDiffer != 0 {
		t.Errorf("one run: %+v", res.Report.Summary)
	}

	// shown: each value with the two runs' raw values; a report folder's
	// copy shows none
	res, err = checkAll(ctx, store, withRules(t, e), Selection{}, Options{ShowRedacted: true})
	if err != nil {
		t.Fatal(err)
	}
	cr = res.Report.Cases[0]
	if r := cr.Redacted; r == nil || len(r.Shown) != 2 || r.Shown[1].First == r.Shown[1].Later || r.Shown[1].Later == "" ||
		!slices.Equal(r.Shown[1].Rules, []int{1}) {
		t.Errorf("shown: %+v", cr.Redacted)
	}
	if u := cr.Unshown(); u == cr || u.Redacted.Shown != nil || u.Redacted.Values != 2 || cr.Redacted.Shown == nil {
		t.Errorf("Unshown: %+v, the case %+v", u.Redacted, cr.Redacted)
	}
	if plain := res.Report.Cases[1].Unshown(); plain.Unshown() != plain {
		t.Error("Unshown copies a case that shows nothing")
	}

	// a rule added since the baseline was recorded changes the case, and
	// is named; what a check keeps of it is redacted
	wider := redacting{flaky, append(slices.Clone(nonce), env.RedactWhole("calls", "/*/output/id"))}
	res, err = checkAll(ctx, store, withRules(t, wider), Selection{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	cr = res.Report.Cases[0]
	if cr.Status != report.StatusChanged || len(cr.Files) != 1 || cr.Files[0].File != runner.CallsFile {
		t.Fatalf("a rule added: %+v", cr)
	}
	want := []change.RedactionNote{{Cause: "redaction-added", Rules: []int{2}, Count: 1, Pointers: []string{"/0/output/id"},
		Note: "redact[2] (calls /*/output/id) redacts a value the baseline holds as it was: a redaction added or widened since the baseline was recorded"}}
	if diff := cmp.Diff(want, cr.Files[0].Redactions); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
	if kept := res.Fresh[k]; !bytes.Contains(kept.Calls, []byte(`"id": "[redacted: string]"`)) || !bytes.Contains(kept.StateDiff, []byte(`"[redacted: number]"`)) {
		t.Errorf("the fresh artifacts kept are not redacted:\n%s\n%s", kept.Calls, kept.StateDiff)
	}
}

// TestRedactionErrors: a run the rules cannot redact makes its case an
// error, in check and in record (which then writes nothing).
func TestRedactionErrors(t *testing.T) {
	ctx := context.Background()
	store := baseline.Open(t.TempDir())
	// ".a" turns "balance" into "aance", which it matches again
	e := redacting{newLedger(t, ledgerOpts{tasks: 1}), []env.Redaction{env.RedactMatch("result", "/agentOutput", ".a", "a")}}
	rep, err := Record(ctx, store, withRules(t, e), Selection{}, RecordOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rc := rep.Cases[0]; rc.Status != RecordError || !strings.Contains(rc.Error, "change it again") || !strings.Contains(rc.Error, "fix the rule") {
		t.Errorf("record: %+v", rc)
	}
	res, err := checkAll(ctx, store, withRules(t, e), Selection{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if cr := res.Report.Cases[0]; cr.Status != report.StatusError || !strings.HasPrefix(cr.Error, `redact result: at "/agentOutput", redact[0]`) {
		t.Errorf("check: %+v", cr)
	}
}

// TestEnvFrozen: an environment's rules come from its manifest or from its
// code, never both; a manifest's list is checked; run --runs compares the
// runs redacted.
func TestEnvFrozen(t *testing.T) {
	project := t.TempDir()
	plain := newLedger(t, ledgerOpts{tasks: 1, flaky: true})
	coded := redacting{plain, nonce}
	manifest := filepath.Join(project, env.ManifestPath("ledger"))
	write := func(s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(manifest), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(manifest, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rulesOf := func(e env.Environment) ([]redact.Rule, error) {
		f, err := EnvFrozen(project, e)
		return f.Redact.List(), err
	}
	if got, err := rulesOf(plain); err != nil || len(got) != 0 {
		t.Errorf("no manifest, no code: %v, %v", got, err)
	}
	if got, err := rulesOf(coded); err != nil || !cmp.Equal(got, nonce) {
		t.Errorf("in code: %v, %v", got, err)
	}
	if _, err := rulesOf(redacting{plain, []env.Redaction{env.RedactWhole("trace", "/")}}); err == nil || !strings.HasPrefix(err.Error(), "environment ledger: redact[0].artifact: unknown artifact") {
		t.Errorf("bad rules in code: %v", err)
	}
	write(`{"name":"ledger","entrypoint":".","baselines":["state-diff"],"redact":[{"artifact":"state-diff","path":"/scalars/*/from"},{"artifact":"state-diff","path":"/scalars/*/to"}]}`)
	f, err := EnvFrozen(project, plain)
	if err != nil || f.Redact.Len() != 2 || !slices.Equal(f.Files, []string{runner.StateDiffFile}) {
		t.Errorf("in the manifest: %+v, %v", f, err)
	}
	if _, err := rulesOf(coded); err == nil || err.Error() != ".silo/environments/ledger/silo.environment.json: redact: environment ledger also declares its redactions in code (Definition.Redact); declare them in one place: remove the manifest's list or the code's" {
		t.Errorf("both: %v", err)
	}
	write(`{"name":"ledger","entrypoint":".","redact":[{"artifact":"state-diff","path":"/scalars/*/from","pattern":"("}]}`)
	if _, err := rulesOf(plain); err == nil || !strings.HasPrefix(err.Error(), ".silo/environments/ledger/silo.environment.json: redact[0].pattern: does not compile") {
		t.Errorf("bad rules in the manifest: %v", err)
	}

	// two runs that differ only in the nonce
	var runs []map[string][]byte
	for range 2 {
		agent, _ := plain.Agent("solver")
		task, _ := env.FindTask(plain, "TASK-001")
		o, err := runner.Run(context.Background(), plain, task, agent, runner.Config{ResultOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, o.Artifacts.Files())
	}
	none := Frozen{Files: baseline.Files}
	if d, err := none.Diverges(2, runs[0], runs[1]); err != nil || d == nil || d.Diff.File != runner.StateDiffFile {
		t.Errorf("without rules: %v, %v", d, err)
	}
	rules, _ := redact.New(nonce...)
	if d, err := (Frozen{Files: baseline.Files, Redact: rules}).Diverges(2, runs[0], runs[1]); err != nil || d != nil {
		t.Errorf("with rules: %v, %v", d, err)
	}
}

// TestProposeWholeArtifact: runs whose calls differ in number cannot be
// made to agree but by redacting all of calls.json, which is no proposal.
func TestProposeWholeArtifact(t *testing.T) {
	c := Case{Key: baseline.Key{Env: "ledger", Agent: "solver", Task: "TASK-001"}, Env: newLedger(t, ledgerOpts{tasks: 1})}
	fresh := &freshRuns{
		Raw:      baseline.Entry{Result: []byte("{\n  \"a\": \"2026-04-13T09:00:01Z\"\n}\n"), Calls: []byte("[\n  {\n    \"tool\": \"x\"\n  }\n]\n")},
		Diverged: baseline.Entry{Result: []byte("{\n  \"a\": \"2026-04-13T09:00:02Z\"\n}\n"), Calls: []byte("[]\n")},
	}
	p := propose(c, fresh)
	if p.Stable || len(p.Rules) != 1 || p.Rules[0].Artifact != "result" || p.Rules[0].Path != "/a" {
		t.Errorf("proposal %+v", p)
	}
}

// TestRedactedReport: what a report says of a case's redactions counts
// every value, and shows at most maxShownValues of them, the first run's
// in order, each with a later run's value where it differed, then those
// only a later run had redacted.
func TestRedactedReport(t *testing.T) {
	var nilRun *runRedaction
	if nilRun.report(true) != nil {
		t.Error("no rules: a report of redactions")
	}
	r := &runRedaction{places: map[string][]redact.Place{}, runs: 1}
	for i := range maxShownValues + 20 {
		p := "/" + strings.Repeat("x", i%3) + string(rune('a'+i%26)) + strings.Repeat("0", i/26)
		r.places[runner.CallsFile] = append(r.places[runner.CallsFile], redact.Place{Pointer: p, Rules: []int{0}, Raw: []byte(`"v"`), Value: []byte(`"[redacted: string]"`)})
	}
	r.places[runner.ResultFile] = []redact.Place{{Pointer: "/a", Rules: []int{1}, Raw: []byte(`"` + strings.Repeat("é", maxShownText+5) + `"`), Value: []byte(`"[redacted: string]"`)}}
	r.hidden = map[string][]redact.Hidden{runner.ResultFile: {
		{Pointer: "/a", Rules: []int{1}, Old: []byte(`"1"`), New: []byte(`"2"`), Value: []byte(`"[redacted: string]"`)},
		{Pointer: "/b", Rules: []int{2}, Old: []byte(`"at 1"`), New: []byte(`"at [n]"`), Value: []byte(`"at [n]"`)},
	}}
	r.hiddenAt = map[string]map[string]int{runner.ResultFile: {"/a": 0, "/b": 1}}
	got := r.report(true)
	if got.Values != maxShownValues+21 || got.Differ == nil || *got.Differ != 2 || len(got.Shown) != maxShownValues || got.More != 22 {
		t.Fatalf("values %d, differ %v, shown %d, more %d", got.Values, got.Differ, len(got.Shown), got.More)
	}
	first := got.Shown[0]
	if first.File != runner.ResultFile || first.Pointer != "/a" || first.Later != `"2"` ||
		!strings.HasSuffix(first.First, "…") || len([]rune(first.First)) != maxShownText+1 {
		t.Errorf("first shown: %+v", first)
	}
	if second := got.Shown[1]; second.Pointer != "/b" || second.First != `"at 1"` || second.Later != `"at [n]"` {
		t.Errorf("second shown: %+v", second)
	}
	if third := got.Shown[2]; third.File != runner.CallsFile || third.Later != "" {
		t.Errorf("third shown: %+v", third)
	}
	if quiet := r.report(false); quiet.Shown != nil || quiet.More != 0 || quiet.Values != got.Values {
		t.Errorf("not shown: %+v", quiet)
	}
}
