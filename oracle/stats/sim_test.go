package stats

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/agent-oracle/oracle/env"
)

// simulated is a distribution of n graded runs of which each passes with
// probability p: a required check that holds in the passing runs.
func simulated(rng *rand.Rand, p float64, n int) *Distribution {
	pass := 0
	for range n {
		if rng.Float64() < p {
			pass++
		}
	}
	return counted(pass, n)
}

// counted is a distribution of n graded runs of which pass passed.
func counted(pass, n int) *Distribution {
	d := &Distribution{Runs: n, Verdicts: Verdicts{Pass: pass, Fail: n - pass},
		Terminations: map[string]int{Completed: n}, Violations: map[string]int{}, Rewards: map[string]int{}}
	if pass > 0 {
		d.Rewards["1.00"] = pass
	}
	if n-pass > 0 {
		d.Rewards["0.00"] = n - pass
	}
	d.Checks = []CheckCount{{Label: "done", Kind: env.Required, Runs: n, Passed: pass}}
	return d
}

// simulation runs checks of tasks × runs, the baseline's per-task true
// rates drawn uniformly from [lo, 1], the candidate's lower by drop, and
// counts the verdicts.
type simulation struct {
	tasks, runs, checks int
	lo, drop            float64
	seed                uint64
}

func (s simulation) run(t testing.TB) map[Verdict]int {
	rng := rand.New(rand.NewPCG(s.seed, 0x5eed))
	got := map[Verdict]int{}
	pairs := make([]Pair, s.tasks)
	for range s.checks {
		for i := range pairs {
			p := s.lo + (1-s.lo)*rng.Float64()
			pairs[i] = Pair{Task: fmt.Sprintf("T%03d", i), Baseline: simulated(rng, p, s.runs), Candidate: simulated(rng, p-s.drop, s.runs)}
		}
		d, err := Decide(pairs, Options{K: []int{1}})
		if err != nil {
			t.Fatal(err)
		}
		got[d.Verdict]++
	}
	return got
}

func TestScratchSim(t *testing.T) {
	for _, c := range []struct{ tasks, runs int }{{1, 10}, {2, 10}, {3, 5}, {5, 10}, {8, 10}, {24, 10}, {24, 3}, {50, 20}} {
		s := simulation{tasks: c.tasks, runs: c.runs, checks: 2000, seed: 1}
		got := s.run(t)
		fmt.Printf("FA T=%d N=%d: %v (%.2f%%)\n", c.tasks, c.runs, got, 100*float64(got[Regression]+got[Improvement])/float64(s.checks))
	}
	for _, tasks := range []int{1, 2, 3, 5, 8, 24, 50} {
		n, err := RunsFor(Design{Tasks: tasks}, 0.2)
		if err != nil {
			fmt.Println(err)
			continue
		}
		s := simulation{tasks: tasks, runs: n, checks: 2000, lo: 0.2, drop: 0.2, seed: 2}
		got := s.run(t)
		fmt.Printf("DET T=%d N=%d: %v (%.2f%%)\n", tasks, n, got, 100*float64(got[Regression])/float64(s.checks))
	}
}
