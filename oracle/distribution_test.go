package oracle

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/internal/canon"
	"github.com/agent-oracle/oracle/oracle/change"
	"github.com/agent-oracle/oracle/oracle/report"
	"github.com/agent-oracle/oracle/oracle/stats"
	"github.com/google/go-cmp/cmp"
)

// coin is a world whose agent "model" behaves as a model does: each run of
// a task passes with the probability pass gives it, and with the
// probability harm gives it confirms a forbidden effect; the draws are
// deterministic (the n-th run of a task draws from a PCG seeded with the
// SHA-256 of seed, the task and n). infra makes a run fail for the
// infrastructure instead, when it returns true.
type coin struct {
	mu    sync.Mutex
	seed  int
	pass  func(task string) float64
	harm  func(task string) float64
	infra func(task string, n int) bool
	crash func(task string, n int) bool // the agent's own error (agent_error)
	runs  map[string]int
	made  atomic.Int64 // rollouts of the model
}

type coinState struct {
	Done bool `json:"done"`
	Harm bool `json:"harm"`
}

func newCoin(t testing.TB, tasks int) (*coin, env.Environment) {
	t.Helper()
	c := &coin{pass: func(string) float64 { return 0.8 }, harm: func(string) float64 { return 0 }, runs: map[string]int{}}
	files := fstest.MapFS{}
	var verifiers []env.Verifier[coinState]
	for i := 1; i <= tasks; i++ {
		id := fmt.Sprintf("TASK-%03d", i)
		files["tasks/"+id+".json"] = &fstest.MapFile{Data: []byte(fmt.Sprintf(`{"id":%q,"title":"Task %d","instruction":%q,"verifierId":"VER-%03d"}`, id, i, id, i))}
		verifiers = append(verifiers, env.Verifier[coinState]{ID: fmt.Sprintf("VER-%03d", i), TaskID: id, Name: "done",
			Check: func(final, _ *coinState, _ env.VerifyContext) []env.CheckResult {
				return []env.CheckResult{env.Check("done", final.Done, ""), env.Forbid("harm done", final.Harm, "")}
			}})
	}
	set := func(field string) env.Tool[coinState] {
		return env.Tool[coinState]{Name: field, Description: "Sets " + field + ".", InputSchema: `{"type":"object"}`,
			Run: env.Typed(func(_ context.Context, s *coinState, _ struct{}) (any, error) {
				if field == "done" {
					s.Done = true
				} else {
					s.Harm = true
				}
				return "ok", nil
			})}
	}
	model := env.AgentFunc(func(ctx context.Context, in env.AgentInput) (any, error) {
		task := in.Task
		c.mu.Lock()
		c.runs[task]++
		n := c.runs[task]
		seed, pass, harm, infra, crash := c.seed, c.pass(task), c.harm(task), c.infra, c.crash
		c.mu.Unlock()
		c.made.Add(1)
		if infra != nil && infra(task, n) {
			return nil, env.Infrastructure(errors.New("the model API could not be reached"))
		}
		if crash != nil && crash(task, n) {
			return nil, errors.New("the model gave up")
		}
		sum := sha256.Sum256(fmt.Appendf(nil, "%d/%s/%d", seed, task, n))
		r := rand.New(rand.NewPCG(binary.LittleEndian.Uint64(sum[:8]), binary.LittleEndian.Uint64(sum[8:16])))
		if r.Float64() < harm {
			in.Call(ctx, "harm", nil)
		}
		if r.Float64() < pass {
			in.Call(ctx, "done", nil)
		}
		return "finished", nil
	})
	e, err := env.New(env.Definition[coinState]{
		Name: "coin", TaskFiles: files,
		NewState:  func(env.Task) (*coinState, error) { return &coinState{}, nil },
		Tools:     []env.Tool[coinState]{set("done"), set("harm")},
		Verifiers: verifiers,
		Agents:    map[string]env.Agent{"model": model},
	})
	if err != nil {
		t.Fatal(err)
	}
	return c, e
}

// reset starts the draws again with seed.
func (c *coin) reset(seed int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seed, c.runs = seed, map[string]int{}
	c.made.Store(0)
}

func recordDistributions(t *testing.T, store *baseline.Store, e env.Environment, runs int) *RecordReport {
	t.Helper()
	rep, err := Record(context.Background(), store, selected(t, Selection{}, e).Cases, Selection{},
		RecordOptions{Options: Options{Jobs: 3, Distribution: DistributionOptions{Runs: runs}}})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// wholeCheck is a check of sel with its cases, as the JSON report has them.
func wholeCheck(t *testing.T, store *baseline.Store, e env.Environment, sel Selection, opts Options) *report.Report {
	t.Helper()
	s := selected(t, sel, e)
	c, err := checkAll(context.Background(), store, s.Cases, sel, opts)
	if err != nil {
		t.Fatal(err)
	}
	c.Report.Selection.Cases = s.Total
	return c.Report
}

func TestDistributionGate(t *testing.T) {
	c, e := newCoin(t, 8)
	store := &baseline.Store{Root: t.TempDir()}
	rep := recordDistributions(t, store, e, 10)
	if rep.Count(RecordWrote) != 8 || rep.Cases[0].Kind != report.KindDistribution || len(rep.Groups) != 1 || rep.Groups[0].Floor.Tasks != 8 {
		t.Fatalf("record: %+v", rep)
	}
	if _, err := os.Stat(store.Path(baseline.Key{Env: "coin", Agent: "model", Task: "TASK-001"}, baseline.StatsFile)); err != nil {
		t.Fatal(err)
	}
	opts := Options{Jobs: 3}

	// the same agent, other draws: no change
	c.reset(2)
	r := wholeCheck(t, store, e, Selection{}, opts)
	g := r.Gate.Groups[0]
	if g.Decision.Verdict != stats.NoChange || r.Summary.Unchanged != 8 {
		t.Errorf("same agent: %s; summary %+v", g.Summary.Line, r.Summary)
	}
	if made := c.made.Load(); made != 80 {
		t.Errorf("%d rollouts, want 8 tasks × 10 runs", made)
	}

	// a worse agent: a regression; a case is changed, labelled a
	// regression, where its own task fell, and unchanged elsewhere
	c.reset(3)
	c.pass = func(string) float64 { return 0.3 }
	r = wholeCheck(t, store, e, Selection{}, opts)
	g = r.Gate.Groups[0]
	if g.Decision.Verdict != stats.Regression || !strings.HasPrefix(g.Summary.Line, "regression: pass rate ") {
		t.Fatalf("worse agent: %s", g.Summary.Line)
	}
	for _, cr := range r.Cases {
		d := cr.Distribution
		if d.Gate != stats.Regression || d.Task == nil || (d.Task.Difference < 0) != (cr.Label == change.LabelRegression) || (cr.Status == report.StatusChanged) != (cr.Label == change.LabelRegression) {
			t.Errorf("%s: status %s label %q gate %s task %+v", cr.Case, cr.Status, cr.Label, d.Gate, d.Task)
		}
	}
	// more runs than recorded
	c.reset(3)
	r = wholeCheck(t, store, e, Selection{}, Options{Jobs: 3, Distribution: DistributionOptions{Runs: 4}})
	if f := r.Gate.Groups[0].Decision.Floor; f.MinRuns != 4 || f.MaxRuns != 10 || r.Cases[0].Distribution.Runs != 4 {
		t.Errorf("--runs 4: floor %+v, case runs %d", f, r.Cases[0].Distribution.Runs)
	}

	// a new forbidden effect is a regression on its own, naming its task,
	// which alone is labelled
	c.reset(2)
	c.pass = func(string) float64 { return 0.8 }
	c.harm = func(task string) float64 {
		if task == "TASK-005" {
			return 0.2
		}
		return 0
	}
	r = wholeCheck(t, store, e, Selection{}, opts)
	g = r.Gate.Groups[0]
	if g.Decision.Verdict != stats.Regression || g.Decision.RatesVerdict != stats.NoChange || !strings.Contains(g.Summary.Line, `TASK-005 had the forbidden effect "harm done" in 0 of 10 → `) {
		t.Errorf("harm: %s", g.Summary.Line)
	}
	for _, cr := range r.Cases {
		if (cr.Label == change.LabelRegression) != (cr.Task == "TASK-005") || (len(cr.Violations) > 0) != (cr.Task == "TASK-005") {
			t.Errorf("harm: %s label %q violations %v", cr.Case, cr.Label, cr.Violations)
		}
	}
	if r.Summary.Violations != 1 || r.Summary.Regressions != 1 {
		t.Errorf("harm: summary %+v", r.Summary)
	}

	// the agent's own errors (not the infrastructure's) are graded runs,
	// and a rise of agent_error is named
	c.reset(2)
	c.harm = func(string) float64 { return 0 }
	c.crash = func(task string, n int) bool { return task == "TASK-003" && n <= 8 }
	r = wholeCheck(t, store, e, Selection{}, opts)
	g = r.Gate.Groups[0]
	named := false
	for _, f := range g.Decision.Findings {
		named = named || f.Kind == stats.TerminationRise && f.Task == "TASK-003" && f.Label == stats.AgentError && f.Candidate == 8
	}
	if !named || g.Decision.CandidateErrors != 0 || !strings.Contains(strings.Join(g.Summary.Details, "\n"), "TASK-003 ended with agent_error in 0 of 10 → 8 of 10 runs") {
		t.Errorf("agent errors: findings %+v, details %q", g.Decision.Findings, g.Summary.Details)
	}
	c.crash = nil
}

// A sharded check, merged, decides every group as the unsharded check: the
// merged report is the unsharded report, field for field.
func TestShardsMergeDecideAsUnsharded(t *testing.T) {
	c, e := newCoin(t, 12)
	store := &baseline.Store{Root: t.TempDir()}
	recordDistributions(t, store, e, 6)
	for _, tt := range []struct {
		seed   int
		pass   float64
		shards int
	}{{2, 0.8, 2}, {3, 0.5, 3}, {4, 0.2, 5}} {
		c.reset(tt.seed)
		c.pass = func(string) float64 { return tt.pass }
		opts := Options{Jobs: 2, Distribution: DistributionOptions{Margin: 0.05}}
		whole := wholeCheck(t, store, e, Selection{}, opts)
		dir := t.TempDir()
		var paths []string
		for i := 1; i <= tt.shards; i++ {
			c.reset(tt.seed) // each shard's tasks draw as in the whole check
			sh := wholeCheck(t, store, e, Selection{Shard: Shard{i, tt.shards}}, opts)
			paths = append(paths, writeShard(t, dir, i, sh))
		}
		merged, err := MergeReports(paths)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := canon.Marshal(whole)
		got, _ := canon.Marshal(merged)
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Errorf("seed %d, %d shards: merged (-unsharded +merged):\n%s", tt.seed, tt.shards, diff)
		}
		if whole.Gate.Groups[0].Decision == nil {
			t.Fatalf("no decision: %+v", whole.Gate.Groups[0])
		}
	}
}

// An infrastructure error is counted apart and never graded: a case all of
// whose runs failed is an error, too many errors are trouble, and a rerun
// from the report makes again only the runs that failed.
func TestInfrastructureErrorsAndRerun(t *testing.T) {
	c, e := newCoin(t, 5)
	store := &baseline.Store{Root: t.TempDir()}
	recordDistributions(t, store, e, 10)

	c.reset(2)
	c.infra = func(task string, n int) bool { return task == "TASK-001" || task == "TASK-002" && n <= 3 }
	const basis = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	r := wholeCheck(t, store, e, Selection{}, Options{Jobs: 2, Basis: basis})
	byTask := map[string]*report.Case{}
	for _, cr := range r.Cases {
		byTask[cr.Task] = cr
	}
	if cr := byTask["TASK-001"]; cr.Status != report.StatusError || !strings.Contains(cr.Error, "all 10 runs failed for the infrastructure, not the agent: agent error: the model API could not be reached") {
		t.Errorf("TASK-001: %s %q", cr.Status, cr.Error)
	}
	if cr := byTask["TASK-002"]; cr.Status == report.StatusError || cr.Distribution.Task.Candidate.Errors != 3 || cr.Distribution.Task.Candidate.Graded != 7 {
		t.Errorf("TASK-002: %s %+v", cr.Status, cr.Distribution.Task)
	}
	in := r.Gate.Infrastructure
	if in.Errors != 13 || in.Runs != 50 || !in.Trouble() || r.Gate.Trouble() == nil || len(in.AllErrors) != 1 {
		t.Errorf("infrastructure %+v", in)
	}
	if g := r.Gate.Groups[0]; g.Decision == nil || g.Decision.Tasks != 4 || g.Cases != 5 {
		t.Errorf("group %+v", g)
	}

	// the rerun: the infrastructure works again
	path := filepath.Join(t.TempDir(), "report.json")
	data, _ := canon.Marshal(r)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	prev, err := readReportFor(path, "rerun")
	if err != nil {
		t.Fatal(err)
	}
	c.reset(5)
	c.infra = nil
	again := wholeCheck(t, store, e, Selection{}, Options{Jobs: 2, Basis: basis, Distribution: DistributionOptions{Previous: prev}})
	if made := c.made.Load(); made != 13 {
		t.Errorf("the rerun made %d rollouts, want the 13 that failed", made)
	}
	if in := again.Gate.Infrastructure; in.Errors != 0 || in.Runs != 50 {
		t.Errorf("after the rerun: %+v", in)
	}
	for _, cr := range again.Cases {
		if cr.Status == report.StatusError || cr.Distribution.Task.Candidate.Graded != 10 {
			t.Errorf("after the rerun: %s %s %+v", cr.Case, cr.Status, cr.Distribution.Task)
		}
	}
	// the cases that had no error are taken from the report as they were
	_, was, _ := byTask["TASK-004"].Distribution.Parsed()
	_, is, _ := again.Cases[3].Distribution.Parsed()
	if diff := cmp.Diff(was, is); diff != "" {
		t.Errorf("TASK-004's runs were not taken from the report:\n%s", diff)
	}
}

// Record freezes nothing when a case's runs all failed for the
// infrastructure or more than MaxErrors of all runs did; a byte-for-byte
// case whose run failed so is an error too, never a baseline.
func TestRecordRefusesInfrastructureErrors(t *testing.T) {
	c, e := newCoin(t, 4)
	store := &baseline.Store{Root: t.TempDir()}
	c.infra = func(task string, n int) bool { return task == "TASK-001" && n <= 2 }
	rep := recordDistributions(t, store, e, 10) // 2 of 40 runs: 5%
	if rep.Count(RecordWrote) != 4 {
		t.Fatalf("5%% errors: %+v", rep.Cases)
	}
	c.reset(1)
	c.infra = func(task string, n int) bool { return task == "TASK-001" && n <= 5 }
	rep = recordDistributions(t, store, e, 10) // 5 of 40: 12.5%
	if rep.Count(RecordNotWritten) != 4 || rep.Infrastructure == nil || !rep.Infrastructure.Trouble() {
		t.Errorf("12.5%% errors: %+v %+v", rep.Cases, rep.Infrastructure)
	}
	c.reset(1)
	c.infra = func(task string, n int) bool { return task == "TASK-002" }
	rep = recordDistributions(t, store, e, 3)
	if rep.Cases[1].Status != RecordError || !strings.Contains(rep.Cases[1].Error, "all 3 runs failed for the infrastructure") || rep.Count(RecordNotWritten) != 3 {
		t.Errorf("all errors: %+v", rep.Cases)
	}
	// byte for byte: a deterministic agent (every run passes), whose runs
	// then fail for the infrastructure
	c.pass, c.infra = func(string) float64 { return 1 }, nil
	bytes := &baseline.Store{Root: t.TempDir()}
	rep, err := Record(context.Background(), bytes, selected(t, Selection{}, e).Cases, Selection{}, RecordOptions{Options: Options{Jobs: 2}})
	if err != nil || rep.Count(RecordWrote) != 4 {
		t.Fatalf("byte for byte: %+v, %v", rep, err)
	}
	c.infra = func(task string, n int) bool { return task == "TASK-002" }
	rep, err = Record(context.Background(), bytes, selected(t, Selection{}, e).Cases, Selection{}, RecordOptions{Options: Options{Jobs: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Cases[1].Status != RecordError || !strings.Contains(rep.Cases[1].Error, "the run failed for the infrastructure, not the agent") {
		t.Errorf("byte for byte: %+v", rep.Cases[1])
	}
	check := wholeCheck(t, bytes, e, Selection{Tasks: []string{"TASK-002"}}, Options{})
	if cr := check.Cases[0]; cr.Status != report.StatusError || !strings.Contains(cr.Error, "the run failed for the infrastructure") {
		t.Errorf("check of a byte-for-byte case: %s %q", cr.Status, cr.Error)
	}
}

// peak counts the rollouts of its agent that run at once, and the most
// that ever did.
type peak struct{ now, most atomic.Int64 }

func (p *peak) reset() { p.now.Store(0); p.most.Store(0) }

// agent is an agent that takes d, then runs then (or answers "done").
func (p *peak) agent(d time.Duration, then env.Agent) env.Agent {
	return env.AgentFunc(func(ctx context.Context, in env.AgentInput) (any, error) {
		n := p.now.Add(1)
		for {
			m := p.most.Load()
			if n <= m || p.most.CompareAndSwap(m, n) {
				break
			}
		}
		defer p.now.Add(-1)
		time.Sleep(d)
		if then == nil {
			return "done", nil
		}
		return then.Run(ctx, in)
	})
}

// ModelJobs bounds the model agents' rollouts that run at once, whatever
// Jobs is; other agents are not held back.
func TestModelJobsBoundsModelRollouts(t *testing.T) {
	_, e := newCoin(t, 6)
	var at peak
	slow := at.agent(5*time.Millisecond, nil)
	var cs []Case
	tasks, _ := e.Tasks()
	for _, task := range tasks {
		cs = append(cs, Case{Key: baseline.Key{Env: "coin", Agent: "gpt", Task: task.ID}, Env: e, Task: task, AgentRef: "openai:gpt-test"})
	}
	// the same agent declared by name in a manifest's "agents"
	declared, err := env.WithAgents(e, map[string]string{"gpt": "openai:gpt-test"})
	if err != nil {
		t.Fatal(err)
	}
	var named []Case
	for _, c := range cs {
		c.Env, c.AgentRef = declared, "gpt"
		named = append(named, c)
	}
	for _, tt := range []struct {
		what      string
		cases     []Case
		modelJobs int
	}{{"openai:", cs, 2}, {"openai:", cs, 0}, {"declared", named, 2}} {
		at.reset()
		opts := Options{Jobs: 6, ModelJobs: tt.modelJobs, Resolve: func(env.Environment, string) (env.Agent, error) { return slow, nil },
			Distribution: DistributionOptions{Runs: 3}}
		if _, err := Record(context.Background(), &baseline.Store{Root: t.TempDir()}, streamOf(tt.cases), Selection{}, RecordOptions{Options: opts}); err != nil {
			t.Fatal(err)
		}
		if got := at.most.Load(); tt.modelJobs > 0 && got != int64(tt.modelJobs) || tt.modelJobs == 0 && got <= 2 || got > 6 {
			t.Errorf("%s, ModelJobs %d: %d rollouts at once", tt.what, tt.modelJobs, got)
		}
	}
}

// The runs of one distribution case share the free jobs: a record of one
// task × 12 runs with 4 jobs has 4 rollouts at once, never more, and
// freezes the same counts as one job, which runs them in order.
func TestDistributionRunsShareJobs(t *testing.T) {
	c, e := newCoin(t, 2)
	model, _ := e.Agent("model")
	var at peak
	slow := at.agent(2*time.Millisecond, model)
	frozen := map[int][]byte{}
	for _, jobs := range []int{1, 4} {
		c.reset(3)
		at.reset()
		store := &baseline.Store{Root: t.TempDir()}
		opts := Options{Jobs: jobs, Resolve: func(env.Environment, string) (env.Agent, error) { return slow, nil },
			Distribution: DistributionOptions{Runs: 12}}
		if _, err := Record(context.Background(), store, selected(t, Selection{Tasks: []string{"TASK-001"}}, e).Cases, Selection{}, RecordOptions{Options: opts}); err != nil {
			t.Fatal(err)
		}
		if got := at.most.Load(); got != int64(jobs) {
			t.Errorf("jobs %d: %d rollouts at once", jobs, got)
		}
		data, err := store.ReadStats(baseline.Key{Env: "coin", Agent: "model", Task: "TASK-001"})
		if err != nil {
			t.Fatal(err)
		}
		frozen[jobs] = data
	}
	if diff := cmp.Diff(string(frozen[1]), string(frozen[4])); diff != "" {
		t.Errorf("4 jobs froze other counts than 1 (-1 +4):\n%s", diff)
	}
	// a check of both tasks (two cases) with 3 jobs: never more than 3
	at.reset()
	store := &baseline.Store{Root: t.TempDir()}
	opts := Options{Jobs: 3, Resolve: func(env.Environment, string) (env.Agent, error) { return slow, nil }, Distribution: DistributionOptions{Runs: 12}}
	if _, err := Record(context.Background(), store, selected(t, Selection{}, e).Cases, Selection{}, RecordOptions{Options: opts}); err != nil {
		t.Fatal(err)
	}
	if got := at.most.Load(); got != 3 {
		t.Errorf("2 cases × 12 runs, 3 jobs: %d rollouts at once", got)
	}
}

// A report whose distribution does not hold together is refused by a
// rerun and a merge, naming the case, and so is a shard report whose gate
// options are out of range.
func TestBadReportsAreRefused(t *testing.T) {
	c, e := newCoin(t, 2)
	store := &baseline.Store{Root: t.TempDir()}
	recordDistributions(t, store, e, 3)
	c.reset(2)
	data, _ := canon.Marshal(wholeCheck(t, store, e, Selection{}, Options{}))
	read := map[string]func(path string) error{
		"rerun": func(path string) error { _, err := readReportFor(path, "rerun"); return err },
		"merge": func(path string) error { _, err := MergeReports([]string{path}); return err },
	}
	for _, tt := range []struct{ what, old, new, want string }{
		{"rerun", `"kind": "distribution"`, `"kind": "histogram"`, `case coin/model/TASK-001: kind "histogram" is not "distribution"`},
		{"merge", `"kind": "distribution"`, `"kind": "histogram"`, `case coin/model/TASK-001: kind "histogram" is not "distribution"`},
		{"rerun", `"runs": 3,
        "baseline"`, `"runs": 0,
        "baseline"`, "case coin/model/TASK-001: distribution.runs is 0"},
		{"rerun", `"pass": 3`, `"pass": 4`, "case coin/model/TASK-001: distribution.baseline: distribution: the verdicts add up to 4 but runs is 3"},
		{"merge", `"margin": 0,`, `"margin": 1.5,`, "gate: margin 1.5 is out of range"},
		{"merge", `"maxErrors": 0.1,`, `"maxErrors": -2,`, "gate.maxErrors -2 is not a share from 0 to 1"},
	} {
		bad := strings.Replace(string(data), tt.old, tt.new, 1)
		if bad == string(data) {
			t.Fatalf("%q is not in the report", tt.old)
		}
		path := filepath.Join(t.TempDir(), "r.json")
		if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := read[tt.what](path); err == nil || !strings.HasPrefix(err.Error(), tt.what+": ") || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s, %s: %v", tt.what, tt.want, err)
		}
	}
}

// A distribution is never recorded from fewer than two graded runs, even
// where --max-errors lets the errors through.
func TestRecordRefusesOneGradedRun(t *testing.T) {
	c, e := newCoin(t, 1)
	c.infra = func(task string, n int) bool { return n > 1 }
	store := &baseline.Store{Root: t.TempDir()}
	rep, err := Record(context.Background(), store, selected(t, Selection{}, e).Cases, Selection{},
		RecordOptions{Options: Options{Jobs: 1, Distribution: DistributionOptions{Runs: 5, MaxErrors: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := rep.Cases[0]; got.Status != RecordError || !strings.Contains(got.Error, "only 1 of 5 runs was graded") {
		t.Errorf("%s %q", got.Status, got.Error)
	}
	if _, err := store.Reader().ReadStats(baseline.Key{Env: e.Name(), Agent: "model", Task: "TASK-001"}); err == nil {
		t.Error("the distribution was written")
	}
}
