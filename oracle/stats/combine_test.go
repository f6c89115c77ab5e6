package stats

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Add is Build of the runs of both: adding the distributions of two sets of
// outcomes gives the distribution of all of them, and WithoutErrors is the
// distribution of the graded ones alone.
func TestAddIsBuildOfBoth(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	labels := []string{"stage set", "note added", "other deal changed", "log complete"}
	outcome := func() Run {
		if r.IntN(6) == 0 {
			return Run{Error: true}
		}
		var checks []Check
		for _, l := range labels[:1+r.IntN(len(labels))] {
			switch l {
			case "stage set":
				checks = append(checks, req(l, r.IntN(3) > 0))
			case "note added":
				checks = append(checks, opt(l, r.IntN(2) > 0))
			case "other deal changed":
				checks = append(checks, forb(l, r.IntN(4) > 0))
			default:
				checks = append(checks, cov(l, r.IntN(3) > 0))
			}
		}
		return run([]string{Completed, Timeout, AgentError}[r.IntN(3)], checks...)
	}
	for trial := range 200 {
		a := make([]Run, 1+r.IntN(8))
		b := make([]Run, 1+r.IntN(8))
		for i := range a {
			a[i] = outcome()
		}
		for i := range b {
			b[i] = outcome()
		}
		da, err1 := Build(a)
		db, err2 := Build(b)
		want, err3 := Build(append(append([]Run{}, a...), b...))
		if err1 != nil || err2 != nil || err3 != nil {
			t.Fatal(err1, err2, err3)
		}
		got, err := Add(da, db)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		gb, _ := got.Marshal()
		wb, _ := want.Marshal()
		if diff := cmp.Diff(string(wb), string(gb)); diff != "" {
			t.Fatalf("trial %d: Add (-Build of both +Add):\n%s", trial, diff)
		}
		var graded []Run
		for _, o := range a {
			if !o.Error {
				graded = append(graded, o)
			}
		}
		w := da.WithoutErrors()
		if len(graded) == 0 {
			if w != nil {
				t.Fatalf("trial %d: WithoutErrors of errors only = %+v, want nil", trial, w)
			}
			continue
		}
		dg, _ := Build(graded)
		wb, _ = dg.Marshal()
		gb, _ = w.Marshal()
		if diff := cmp.Diff(string(wb), string(gb)); diff != "" {
			t.Fatalf("trial %d: WithoutErrors (-Build of the graded +WithoutErrors):\n%s", trial, diff)
		}
		if da.Verdicts.Error > 0 && w.Verdicts.Error != 0 {
			t.Fatal("WithoutErrors changed its receiver's copy")
		}
	}
}

func TestAddRefusesWhatCannotBeOne(t *testing.T) {
	if _, err := Add(nil, nil); err == nil {
		t.Error("Add(nil, nil): no error")
	}
	d := &Distribution{Runs: MaxRuns, Verdicts: Verdicts{Error: MaxRuns}}
	if _, err := Add(d, d); err == nil {
		t.Error("Add over MaxRuns: no error")
	}
	one, _ := Build([]Run{run(Completed, req("stage set", true))})
	got, err := Add(nil, one)
	if err != nil || got == one || got.Runs != 1 {
		t.Errorf("Add(nil, d) = %p %+v, %v; want a copy of d", got, got, err)
	}
}
