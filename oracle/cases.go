package oracle

import (
	"fmt"
	"hash/fnv"
	"iter"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/internal/redact"
)

// Case is one (environment, agent, task) to run.
type Case struct {
	Key  baseline.Key
	Env  env.Environment
	Task env.Task
	// AgentRef is what runner.Resolve takes: a built-in name, exec:COMMAND or
	// replay:PATH. For built-in agents and the agents an environment
	// declares by reference (a manifest's "agents") it equals Key.Agent;
	// Reference is what a declared name stands for.
	AgentRef string
	// Files are the artifact files the case freezes and compares, a subset
	// of baseline.Files in its order; nil means all of them.
	Files []string
	// Redact are the rules that redact the case's artifacts before they
	// are frozen or compared (its environment's volatile fields); the zero
	// Rules redacts nothing.
	Redact redact.Rules

	// plan, when set, treats the case as a distribution or takes it from
	// an earlier report (distribution.go).
	plan *casePlan
}

// Reference is the agent reference the case runs: the one its
// environment declares for its agent's name (env.AgentRef, such as
// openai:gpt-4o for "model-a"), or else AgentRef.
func (c Case) Reference() string {
	if ref, ok := env.AgentRef(c.Env, c.AgentRef); ok {
		return ref
	}
	return c.AgentRef
}

// files returns c.Files, or baseline.Files when it is nil.
func (c Case) files() []string {
	if c.Files == nil {
		return baseline.Files
	}
	return c.Files
}

// Selection narrows the cases. Each list holds names or path.Match globs;
// an empty list selects everything.
type Selection struct {
	Envs, Agents, Tasks []string
	Shard               Shard
}

// Shard selects a stable part of the cases: those whose key hashes to
// Index (1-based) of Count. The zero Shard selects every case.
type Shard struct{ Index, Count int }

// ParseShard parses "i/n" with 1 ≤ i ≤ n.
func ParseShard(s string) (Shard, error) {
	i, n, ok := strings.Cut(s, "/")
	index, err1 := strconv.Atoi(i)
	count, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil || count < 1 || index < 1 || index > count {
		return Shard{}, fmt.Errorf("%q is not i/n with 1 ≤ i ≤ n, e.g. 1/4", s)
	}
	return Shard{index, count}, nil
}

func (s Shard) String() string {
	if s.Count == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// Has reports whether the shard holds the case k.
func (s Shard) Has(k baseline.Key) bool {
	if s.Count <= 1 {
		return true
	}
	h := fnv.New32a()
	h.Write([]byte(k.String()))
	return int(h.Sum32()%uint32(s.Count)) == s.Index-1
}

// Validate checks every glob of the selection.
func (s Selection) Validate() error {
	for _, list := range [][]string{s.Envs, s.Agents, s.Tasks} {
		for _, p := range list {
			if _, err := path.Match(p, ""); err != nil {
				return fmt.Errorf("bad pattern %q: %v", p, err)
			}
		}
	}
	return nil
}

// Selects reports whether the selection holds the case k (shard included).
func (s Selection) Selects(k baseline.Key) bool {
	return matchAny(s.Envs, k.Env) && matchAny(s.Agents, k.Agent) && matchAny(s.Tasks, k.Task) && s.Shard.Has(k)
}

func matchAny(patterns []string, name string) bool {
	return len(patterns) == 0 || slices.ContainsFunc(patterns, func(p string) bool {
		ok, _ := path.Match(p, name)
		return ok
	})
}

// regressionCases yields the regression cases of envs that sel selects:
// every environment × the agents it declares for regression × its tasks,
// environments by name, agents by name, tasks by id, which is key order
// unless an environment declares an agent or a task twice (Select refuses
// that). It is the one walk of the regression cases: Select counts and
// checks them with it, and a check or a record runs them from it. The
// caller has loaded each environment's tasks without error (loadTasks).
func regressionCases(envs []env.Environment, sel Selection) iter.Seq[Case] {
	envs = slices.Clone(envs)
	slices.SortStableFunc(envs, func(a, b env.Environment) int { return strings.Compare(a.Name(), b.Name()) })
	return func(yield func(Case) bool) {
		for _, e := range envs {
			if !matchAny(sel.Envs, e.Name()) {
				continue
			}
			tasks, _ := e.Tasks() // loaded once by the environment, checked by the caller
			byID := func(a, b env.Task) int { return strings.Compare(a.ID, b.ID) }
			if !slices.IsSortedFunc(tasks, byID) {
				tasks = slices.Clone(tasks)
				slices.SortFunc(tasks, byID)
			}
			agents := slices.Sorted(slices.Values(e.RegressionAgents()))
			for _, agent := range agents {
				for _, t := range tasks {
					k := baseline.Key{Env: e.Name(), Agent: agent, Task: t.ID}
					if sel.Selects(k) && !yield(Case{Key: k, Env: e, Task: t, AgentRef: agent}) {
						return
					}
				}
			}
		}
	}
}

// loadTasks loads the tasks of each environment, which regressionCases
// then reads without an error to report.
func loadTasks(envs []env.Environment) error {
	for _, e := range envs {
		if _, err := e.Tasks(); err != nil {
			return err
		}
	}
	return nil
}

// byKey orders cases by key.
func byKey(a, b Case) int { return a.Key.Compare(b.Key) }
