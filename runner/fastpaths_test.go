package runner_test

import (
	"context"
	"testing"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/fixtures/calendar"
	"github.com/agent-oracle/oracle/fixtures/crm"
	"github.com/agent-oracle/oracle/runner"
	"github.com/google/go-cmp/cmp"
)

// plainEnv is an environment whose worlds offer the runner env.World and
// nothing more: none of the fast paths of env/fastpaths.go.
type plainEnv struct{ env.Environment }

func (p plainEnv) Open(task env.Task) (env.World, error) {
	w, err := p.Environment.Open(task)
	if err != nil {
		return nil, err
	}
	return plainWorld{w}, nil
}

type plainWorld struct{ env.World }

// solverOf opens an environment and returns its tasks and its solver.
func solverOf(tb testing.TB, open func() (env.Environment, error)) (env.Environment, []env.Task, env.Agent) {
	tb.Helper()
	e, err := open()
	if err != nil {
		tb.Fatal(err)
	}
	tasks, err := e.Tasks()
	if err != nil {
		tb.Fatal(err)
	}
	solver, ok := e.Agent("solver")
	if !ok {
		tb.Fatalf("%s has no solver", e.Name())
	}
	return e, tasks, solver
}

// A world and an agent that take none of the runner's fast paths make the
// same baseline files, byte for byte, as those that take them all.
func TestFastPathsChangeNoArtifact(t *testing.T) {
	t.Parallel()
	for _, fast := range []func(any) bool{
		func(w any) bool { _, ok := w.(env.CanonicalWorld); return ok },
		func(w any) bool { _, ok := w.(env.ShallowWorld); return ok },
		func(w any) bool { _, ok := w.(env.SpecWorld); return ok },
		func(w any) bool { _, ok := w.(env.InlineWorld); return ok },
		func(w any) bool { _, ok := w.(env.ReleasingWorld); return ok },
	} {
		if fast(plainWorld{}) {
			t.Fatal("plainWorld takes a fast path")
		}
	}
	for _, open := range []func() (env.Environment, error){crm.New, calendar.New} {
		e, tasks, solver := solverOf(t, open)
		if _, ok := solver.(env.InlineAgent); !ok {
			t.Fatalf("%s's solver is not an env.InlineAgent: the test compares nothing", e.Name())
		}
		plainSolver := env.AgentFunc(solver.Run)
		for _, task := range tasks {
			t.Run(e.Name()+"/"+task.ID, func(t *testing.T) {
				fast, err := runner.Run(context.Background(), e, task, solver, runner.Config{ResultOnly: true})
				if err != nil {
					t.Fatal(err)
				}
				plain, err := runner.Run(context.Background(), plainEnv{e}, task, plainSolver, runner.Config{ResultOnly: true})
				if err != nil {
					t.Fatal(err)
				}
				for _, f := range []struct {
					name        string
					fast, plain []byte
				}{
					{runner.ResultFile, fast.Artifacts.Result, plain.Artifacts.Result},
					{runner.StateDiffFile, fast.Artifacts.StateDiff, plain.Artifacts.StateDiff},
					{runner.CallsFile, fast.Artifacts.Calls, plain.Artifacts.Calls},
				} {
					if diff := cmp.Diff(string(f.fast), string(f.plain)); diff != "" {
						t.Errorf("%s differs without the fast paths (-fast +plain):\n%s", f.name, diff)
					}
				}
			})
		}
	}
}

// BenchmarkFastPaths rolls crm's solver through each crm task with the
// runner's fast paths and without them (see plainEnv), as check and record
// do (ResultOnly).
func BenchmarkFastPaths(b *testing.B) {
	e, tasks, solver := solverOf(b, crm.New)
	for _, bb := range []struct {
		name  string
		e     env.Environment
		agent env.Agent
	}{{"fast", e, solver}, {"plain", plainEnv{e}, env.AgentFunc(solver.Run)}} {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, task := range tasks {
					if _, err := runner.Run(context.Background(), bb.e, task, bb.agent, runner.Config{ResultOnly: true}); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
