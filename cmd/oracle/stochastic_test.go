package main

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agent-oracle/oracle/agent/openai"
	"github.com/agent-oracle/oracle/env"
)

// Agents whose bytes never repeat, for the script tests of distribution
// cases, added to the built-in environments as regression agents when
// their variables are set:
//
//	ORACLE_TEST_STOCHASTIC=SPEC   "stochastic" in crm and calendar: each run
//	    passes (the reference solver's rollout) with the probability SPEC
//	    gives its task, and otherwise answers without a call (a fail). SPEC
//	    is a default probability and TASK=P overrides, comma-separated:
//	    "0.9,TASK-004=0.5".
//	ORACLE_TEST_STOCHASTIC_FORBID=SPEC  with it, in a run of TASK with
//	    probability P, the agent first makes a duplicate account (TASK-007's
//	    forbidden effect): "TASK-007=0.5".
//	ORACLE_TEST_STOCHASTIC_SEED=N  the seed of the draws (default 1).
//	ORACLE_TEST_MODEL=1           "model" in crm: the openai agent of the
//	    model fake-model at OPENAI_BASE_URL, retrying a failed request twice
//	    without waiting.
//
// The draws are deterministic: the n-th run of a task in a process draws
// from a PCG seeded with the SHA-256 of the seed, the environment, the
// task and n, so a record or a check gives the same counts every time,
// whatever order the runs end in.
func withTestAgents(envs []env.Environment) ([]env.Environment, error) {
	extra := map[string]map[string]env.Agent{}
	if spec := os.Getenv("ORACLE_TEST_STOCHASTIC"); spec != "" {
		s, err := newStochastic(spec, os.Getenv("ORACLE_TEST_STOCHASTIC_FORBID"), os.Getenv("ORACLE_TEST_STOCHASTIC_SEED"))
		if err != nil {
			return nil, err
		}
		for _, e := range envs {
			if e.Name() == "crm" || e.Name() == "calendar" {
				extra[e.Name()] = map[string]env.Agent{"stochastic": s.agent(e)}
			}
		}
	}
	if os.Getenv("ORACLE_TEST_MODEL") != "" {
		cfg := openai.FromEnv("fake-model")
		cfg.API.MaxRetries = 2
		cfg.API.Sleep = func(context.Context, time.Duration) error { return nil }
		a, err := openai.New(cfg)
		if err != nil {
			return nil, err
		}
		if extra["crm"] == nil {
			extra["crm"] = map[string]env.Agent{}
		}
		extra["crm"]["model"] = a
	}
	for i, e := range envs {
		if agents := extra[e.Name()]; agents != nil {
			envs[i] = &moreAgents{Environment: e, extra: agents}
		}
	}
	return envs, nil
}

// moreAgents is an environment with more regression agents.
type moreAgents struct {
	env.Environment
	extra map[string]env.Agent
}

func (m *moreAgents) Agents() []string { return m.names(m.Environment.Agents()) }

func (m *moreAgents) RegressionAgents() []string { return m.names(m.Environment.RegressionAgents()) }

func (m *moreAgents) names(base []string) []string {
	out := slices.Clone(base)
	for name := range m.extra {
		out = append(out, name)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func (m *moreAgents) Agent(name string) (env.Agent, bool) {
	if a, ok := m.extra[name]; ok {
		return a, true
	}
	return m.Environment.Agent(name)
}

// stochastic draws each run's fate.
type stochastic struct {
	pass, forbid probabilities
	seed         uint64
	mu           sync.Mutex
	runs         map[string]uint64 // runs drawn, by env/task
}

type probabilities struct {
	def    float64
	byTask map[string]float64
}

func (p probabilities) of(task string) float64 {
	if v, ok := p.byTask[task]; ok {
		return v
	}
	return p.def
}

func parseProbabilities(spec string) (probabilities, error) {
	p := probabilities{byTask: map[string]float64{}}
	for _, part := range strings.Split(spec, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		task, value, named := strings.Cut(part, "=")
		if !named {
			value = task
		}
		v, err := strconv.ParseFloat(value, 64)
		if err != nil || v < 0 || v > 1 {
			return p, fmt.Errorf("stochastic agent: %q is not a probability", part)
		}
		if named {
			p.byTask[task] = v
		} else {
			p.def = v
		}
	}
	return p, nil
}

func newStochastic(pass, forbid, seed string) (*stochastic, error) {
	s := &stochastic{seed: 1, runs: map[string]uint64{}}
	var err error
	if s.pass, err = parseProbabilities(pass); err != nil {
		return nil, err
	}
	if s.forbid, err = parseProbabilities(forbid); err != nil {
		return nil, err
	}
	if seed != "" {
		if s.seed, err = strconv.ParseUint(seed, 10, 64); err != nil {
			return nil, fmt.Errorf("stochastic agent: seed %q: %v", seed, err)
		}
	}
	return s, nil
}

// draw gives the next run of task of environment e its two draws: whether
// it passes and whether it makes the forbidden effect.
func (s *stochastic) draw(e, task string) (pass, forbid bool) {
	s.mu.Lock()
	s.runs[e+"/"+task]++
	n := s.runs[e+"/"+task]
	s.mu.Unlock()
	r := seeded(fmt.Sprintf("%d/%s/%s/%d", s.seed, e, task, n))
	return r.Float64() < s.pass.of(task), r.Float64() < s.forbid.of(task)
}

// seeded is a PCG seeded with the SHA-256 of name: the draws of two names
// are unrelated, however alike the names.
func seeded(name string) *rand.Rand {
	sum := sha256.Sum256([]byte(name))
	return rand.New(rand.NewPCG(binary.LittleEndian.Uint64(sum[:8]), binary.LittleEndian.Uint64(sum[8:16])))
}

// agent is the stochastic agent of e, which drives e's reference solver.
func (s *stochastic) agent(e env.Environment) env.Agent {
	solver, _ := e.Agent("solver")
	return env.AgentFunc(func(ctx context.Context, in env.AgentInput) (any, error) {
		task := taskOf(e, in.Task)
		pass, forbid := s.draw(e.Name(), task)
		if forbid {
			in.Call(ctx, "create_account", map[string]any{"actorUserId": "USR-003", "name": "Quillon Analytics Ltd"})
		}
		if !pass {
			return "I could not finish this task.", nil
		}
		return solver.Run(ctx, in)
	})
}

// taskOf is the id of e's task whose instruction is instruction.
func taskOf(e env.Environment, instruction string) string {
	tasks, _ := e.Tasks()
	for _, t := range tasks {
		if t.Instruction == instruction {
			return t.ID
		}
	}
	return instruction
}
