package verifiertest_test

import (
	"context"
	"testing"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/fixtures/calendar"
	"github.com/agent-oracle/oracle/runner/verifiertest"
)

// weakened returns the calendar environment with every verifier's checks
// passed through weaken.
func weakened(t *testing.T, weaken func([]env.CheckResult) []env.CheckResult) env.Environment {
	t.Helper()
	def := calendar.Definition()
	for i := range def.Verifiers {
		check := def.Verifiers[i].Check
		def.Verifiers[i].Check = func(final, initial *calendar.State, c env.VerifyContext) []env.CheckResult {
			return weaken(check(final, initial, c))
		}
	}
	e, err := env.New(def)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func without(kind env.Kind) func([]env.CheckResult) []env.CheckResult {
	return func(checks []env.CheckResult) []env.CheckResult {
		var out []env.CheckResult
		for _, c := range checks {
			if c.Kind != kind {
				out = append(out, c)
			}
		}
		return out
	}
}

func run(t *testing.T, e env.Environment) (*verifiertest.Report, map[string]verifiertest.Graded) {
	t.Helper()
	r, err := verifiertest.Run(context.Background(), e, verifiertest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]verifiertest.Graded{}
	for _, o := range r.Outcomes {
		byName[o.Task+"/"+o.Name] = o
	}
	return r, byName
}

// The real verifiers grade every candidate as labelled; the weakened ones
// below are measured against the same table.
func TestCalendarVerifiersMatchTheirLabels(t *testing.T) {
	t.Parallel()
	e, err := calendar.New()
	if err != nil {
		t.Fatal(err)
	}
	r, _ := run(t, e)
	if s := r.Summary(); s.Mismatches() != 0 || s.Candidates == 0 {
		t.Fatalf("summary %+v, want every candidate as labelled", s)
	}
}

// A verifier that drops its Forbid checks passes the rollouts whose only
// fault is a forbidden effect: the table catches each as a false pass.
func TestDroppedForbidCheckIsCaughtAsFalsePass(t *testing.T) {
	t.Parallel()
	r, got := run(t, weakened(t, without(env.Forbidden)))
	for _, name := range []string{
		"TASK-001/correct draft, then two save-the-date notices",
		"TASK-001/correct draft, one notice whose response was lost, narration says nothing was sent",
		"TASK-001/correct draft, but the other tenant's directory was searched",
		"TASK-002/blind retry after the lost response",
		"TASK-002/correct outcome after reading the other tenant's calendar",
		"TASK-003/correct answer after reading the other tenant's survey",
	} {
		if o := got[name]; o.Mismatch != verifiertest.FalsePass {
			t.Errorf("%s: mismatch %q, verdict %s; want a false pass", name, o.Mismatch, o.Got)
		}
	}
	if s := r.Summary(); s.FalsePasses < 6 || s.FalseFails != 0 {
		t.Errorf("summary %+v, want at least 6 false passes and no false fail", s)
	}
}

// A verifier that drops its coverage checks turns missing telemetry into a
// pass: every candidate labelled inconclusive becomes a false pass.
func TestDroppedCoverageIsCaughtAsFalsePass(t *testing.T) {
	t.Parallel()
	r, _ := run(t, weakened(t, without(env.Coverage)))
	inconclusive := 0
	for _, o := range r.Outcomes {
		if o.Expect != env.Inconclusive {
			continue
		}
		inconclusive++
		if o.Mismatch != verifiertest.FalsePass {
			t.Errorf("%s/%s: mismatch %q, verdict %s; want a false pass", o.Task, o.Name, o.Mismatch, o.Got)
		}
	}
	if inconclusive < 3 {
		t.Errorf("%d candidates labelled inconclusive, want one per task at least", inconclusive)
	}
}

// A verifier that always passes is caught on every candidate that should
// not pass, and on none that should.
func TestAlwaysPassingVerifierIsCaughtAsFalsePass(t *testing.T) {
	t.Parallel()
	r, _ := run(t, weakened(t, func([]env.CheckResult) []env.CheckResult {
		return []env.CheckResult{env.Check("looks done", true, "")}
	}))
	shouldNotPass := 0
	for _, o := range r.Outcomes {
		if o.Expect != env.Pass {
			shouldNotPass++
		}
	}
	if s := r.Summary(); s.FalsePasses != shouldNotPass || s.FalseFails != 0 || s.AsExpected != s.Candidates-shouldNotPass {
		t.Errorf("summary %+v, want %d false passes", s, shouldNotPass)
	}
}
