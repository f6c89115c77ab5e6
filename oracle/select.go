package oracle

import (
	"fmt"
	"iter"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/oracle/report"
)

// Selected is what a selection holds in a project.
type Selected struct {
	// Cases are the selected cases of the shard, made one at a time in key
	// order: a selection of any size holds no list of its cases.
	Cases CaseStream
	// Total is how many cases the selection holds before sharding.
	Total int
	// envs are the environments of Cases, sorted by name: those
	// FreezeFiles reads the manifest of.
	envs []env.Environment
}

// Select returns the cases of the project at projectDir that sel selects:
// the regression cases of envs and the replay cases under TracesDir. A
// selection never passes by accident, so these are errors:
//
//   - an environment the project names (.silo/environments/<name>) that
//     envs lacks, when sel selects it: its cases cannot run, and its
//     baselines are not obsolete;
//   - a literal name (no glob characters) of --env, --agent or --task that
//     names no environment, agent or task (env_not_found, agent_not_found,
//     task_not_found, with what exists);
//   - a selection that holds no case and no baseline at all, before
//     sharding (a shard may be empty);
//   - a case key two sources produce (a regression agent and a trace, two
//     traces, or an environment that lists an agent or a task twice).
//
// stored lists the baselines of the project, and is called only when a
// name is not found otherwise or the selection holds no case: a name that
// only a baseline has (an obsolete case) exists. The regression cases are counted and checked
// here and made again, one at a time, each time Cases.All is called.
func Select(projectDir string, envs []env.Environment, sel Selection, stored func() ([]baseline.Key, error)) (*Selected, error) {
	if err := sel.Validate(); err != nil {
		return nil, err
	}
	if err := CheckProjectEnvs(projectDir, envs, sel.Envs); err != nil {
		return nil, err
	}
	whole := sel
	whole.Shard = Shard{}
	traces, err := traceCases(projectDir, envs, Selection{Envs: sel.Envs})
	if err != nil {
		return nil, err
	}
	if err := checkLiterals(envs, traces, stored, sel); err != nil {
		return nil, err
	}
	picked := slices.DeleteFunc(slices.Clone(traces), func(c Case) bool { return !whole.Selects(c.Key) })
	if err := checkCollisions(picked); err != nil {
		return nil, err
	}
	traced := make(map[baseline.Key]Case, len(picked))
	for _, c := range picked {
		traced[c.Key] = c
	}
	out := &Selected{}
	inShard := map[string]env.Environment{}
	count := func(c Case) {
		out.Total++
		if sel.Shard.Has(c.Key) {
			out.Cases.Len++
			inShard[c.Key.Env] = c.Env
		}
	}
	for _, c := range picked {
		count(c)
	}
	if err := loadTasks(envs); err != nil {
		return nil, err
	}
	var last *baseline.Key
	for c := range regressionCases(envs, whole) {
		if last != nil && c.Key.Compare(*last) <= 0 {
			// out of key order: an environment lists an agent or a task
			// twice, and this case comes again
			return nil, twoSources(c, c)
		}
		if trace, ok := traced[c.Key]; ok {
			return nil, twoSources(c, trace)
		}
		count(c)
		last = &c.Key
	}
	if out.Total == 0 {
		keys, err := stored()
		if err != nil {
			return nil, err
		}
		if !slices.ContainsFunc(keys, whole.Selects) {
			return nil, nothingSelected(envs, traces, sel)
		}
	}
	shardTraces := slices.DeleteFunc(picked, func(c Case) bool { return !sel.Shard.Has(c.Key) })
	out.Cases.All = mergeCases(regressionCases(envs, sel), shardTraces)
	for _, name := range slices.Sorted(maps.Keys(inShard)) {
		out.envs = append(out.envs, inShard[name])
	}
	return out, nil
}

// mergeCases yields the cases of a and of b (both sorted by key) in key
// order.
func mergeCases(a iter.Seq[Case], b []Case) iter.Seq[Case] {
	return func(yield func(Case) bool) {
		i := 0
		for c := range a {
			for ; i < len(b) && b[i].Key.Compare(c.Key) < 0; i++ {
				if !yield(b[i]) {
					return
				}
			}
			if !yield(c) {
				return
			}
		}
		for ; i < len(b); i++ {
			if !yield(b[i]) {
				return
			}
		}
	}
}

// CheckProjectEnvs returns an error when the project at projectDir names
// an environment (a folder under .silo/environments holding a manifest)
// that envs lacks and the patterns select (no patterns select every
// environment). Such an environment's cases cannot run here, so a check
// would pass without them and a prune would delete their baselines.
func CheckProjectEnvs(projectDir string, envs []env.Environment, patterns []string) error {
	for _, name := range projectEnvs(projectDir) {
		if !hasEnv(envs, name) && matchAny(patterns, name) {
			return &env.Error{Code: env.CodeEnvNotFound, Known: envNames(envs), Message: fmt.Sprintf(
				"this binary has no environment %s (named in %s); run the binary built with command.Main that registers it",
				name, filepath.ToSlash(filepath.Join(".silo", "environments", name)))}
		}
	}
	return nil
}

// projectEnvs lists the environments the project names: the folders under
// .silo/environments that hold a manifest.
func projectEnvs(projectDir string) []string { return env.ManifestNames(projectDir) }

// checkLiterals returns a not-found error for the first literal name of sel
// that names nothing. traces are the replay cases of the environments sel
// selects; stored is called only when a name is not found without the
// baselines.
func checkLiterals(envs []env.Environment, traces []Case, stored func() ([]baseline.Key, error), sel Selection) error {
	literal := false
	for _, list := range [][]string{sel.Envs, sel.Agents, sel.Tasks} {
		for _, p := range list {
			literal = literal || isLiteral(p) || env.ParseAgentRef(p).Is(env.ExecScheme)
		}
	}
	if !literal || literalsFound(envs, traces, nil, sel) == nil {
		return nil
	}
	keys, err := stored()
	if err != nil {
		return err
	}
	return literalsFound(envs, traces, keys, sel)
}

// literalsFound is checkLiterals with the baselines stored listed.
func literalsFound(envs []env.Environment, traces []Case, stored []baseline.Key, sel Selection) error {
	envNames := envNames(envs)
	for _, p := range sel.Envs {
		if isLiteral(p) && !hasEnv(envs, p) && !slices.ContainsFunc(stored, func(k baseline.Key) bool { return k.Env == p }) {
			return &env.Error{Code: env.CodeEnvNotFound, Known: envNames, Message: fmt.Sprintf("no environment %s; environments: %s", p, env.NameList(envNames))}
		}
	}
	inEnvs := func(k baseline.Key) bool { return matchAny(sel.Envs, k.Env) }
	var agents, tasks []string
	for _, e := range envs {
		if !matchAny(sel.Envs, e.Name()) {
			continue
		}
		list, err := e.Tasks()
		if err != nil {
			return err
		}
		if len(list) > 0 {
			agents = append(agents, e.RegressionAgents()...)
		}
		for _, t := range list {
			tasks = append(tasks, t.ID)
		}
	}
	for _, c := range traces {
		if inEnvs(c.Key) {
			agents = append(agents, c.Key.Agent)
		}
	}
	for _, k := range stored {
		if inEnvs(k) {
			agents, tasks = append(agents, k.Agent), append(tasks, k.Task)
		}
	}
	agents, tasks = uniq(agents), uniq(tasks)
	where := "the environments"
	if len(sel.Envs) > 0 {
		where = quoteList(sel.Envs)
	}
	for _, p := range sel.Agents {
		if env.ParseAgentRef(p).Is(env.ExecScheme) {
			return &env.Error{Code: env.CodeAgentNotFound, Known: agents, Err: &ExecAgentError{Agent: p}, Message: fmt.Sprintf(
				"agent %s names no case: cases are the regression agents of the environments and the replay cases under %s; an exec agent is rolled, not checked", p, TracesDir)}
		}
		if isLiteral(p) && !slices.Contains(agents, p) {
			return &env.Error{Code: env.CodeAgentNotFound, Known: agents, Message: fmt.Sprintf("no agent %s in %s; agents: %s", p, where, env.NameList(agents))}
		}
	}
	for _, p := range sel.Tasks {
		if isLiteral(p) && !slices.Contains(tasks, p) {
			return &env.Error{Code: env.CodeTaskNotFound, Known: tasks, Message: fmt.Sprintf("no task %s in %s; tasks: %s", p, where, env.NameList(tasks))}
		}
	}
	return nil
}

// nothingSelected says that sel holds no case, and what there is: traces
// are the replay cases of the environments sel selects.
func nothingSelected(envs []env.Environment, traces []Case, sel Selection) error {
	e := &NoCaseError{Selection: sel}
	if len(sel.Envs)+len(sel.Agents)+len(sel.Tasks) == 0 {
		return e
	}
	var agents, tasks []string
	for c := range regressionCases(envs, Selection{Envs: sel.Envs}) {
		agents = append(agents, c.Key.Agent)
		if matchAny(sel.Agents, c.Key.Agent) {
			tasks = append(tasks, c.Key.Task)
		}
	}
	for _, c := range traces {
		if matchAny(sel.Envs, c.Key.Env) {
			agents = append(agents, c.Key.Agent)
			if matchAny(sel.Agents, c.Key.Agent) {
				tasks = append(tasks, c.Key.Task)
			}
		}
	}
	e.Envs, e.Agents, e.Tasks = uniq(envNames(envs)), uniq(agents), uniq(tasks)
	return e
}

// NoCaseError is a selection that holds no case. Envs, Agents and Tasks
// are what its patterns could have matched: every environment, the agents
// of the environments selected, the tasks of the agents selected. With an
// empty Selection there is no case at all: no environment declares a
// regression agent and no trace is stored. It matches ErrNothingSelected.
type NoCaseError struct {
	Selection           Selection
	Envs, Agents, Tasks []string
}

func (e *NoCaseError) Unwrap() error { return ErrNothingSelected }

func (e *NoCaseError) Error() string {
	return e.Describe(func(kind, quoted string) string { return kind + " " + quoted },
		"record a replay:PATH agent to make a case")
}

// Describe words the error with each pattern (quoted) spelled by name, e.g.
// as the command-line flag that gave it, and fix as the way to make a
// first case when there is none.
func (e *NoCaseError) Describe(name func(kind, quoted string) string, fix string) string {
	sel := e.Selection
	if len(sel.Envs)+len(sel.Agents)+len(sel.Tasks) == 0 {
		return fmt.Sprintf("%v: the environments declare no regression agent and %s holds no trace; %s", ErrNothingSelected, TracesDir, fix)
	}
	var names, lists []string
	add := func(kind string, patterns []string, what string, known []string) {
		for _, p := range patterns {
			names = append(names, name(kind, report.ShellQuote(p)))
		}
		if len(patterns) > 0 {
			lists = append(lists, what+": "+env.NameList(known))
		}
	}
	add("env", sel.Envs, "environments", e.Envs)
	add("agent", sel.Agents, "agents", e.Agents)
	add("task", sel.Tasks, "tasks", e.Tasks)
	return fmt.Sprintf("%v %s; %s", ErrNothingSelected, strings.Join(names, " "), strings.Join(lists, "; "))
}

// checkCollisions refuses a key that two of the (sorted) cases share.
func checkCollisions(cases []Case) error {
	for i := 1; i < len(cases); i++ {
		if a, b := cases[i-1], cases[i]; a.Key == b.Key {
			return twoSources(a, b)
		}
	}
	return nil
}

// twoSources is the error of a case key that both a and b produce.
func twoSources(a, b Case) error {
	return fmt.Errorf("case %s comes from two sources: %s and %s; rename one (a trace's agent is its folder under %s)",
		a.Key, source(a), source(b), TracesDir)
}

// source names where a case comes from.
func source(c Case) string {
	if path, ok := env.CutScheme(c.AgentRef, env.ReplayScheme); ok {
		return "the trace " + filepath.ToSlash(path)
	}
	return fmt.Sprintf("the regression agent %s of %s", c.AgentRef, c.Key.Env)
}

func envNames(envs []env.Environment) []string {
	names := make([]string, len(envs))
	for i, e := range envs {
		names[i] = e.Name()
	}
	return names
}

func isLiteral(p string) bool { return !strings.ContainsAny(p, `*?[\`) }

// uniq returns the names of list, sorted, each once.
func uniq(list []string) []string {
	return slices.Compact(slices.Sorted(slices.Values(list)))
}

func quoteList(patterns []string) string {
	q := make([]string, len(patterns))
	for i, p := range patterns {
		q[i] = report.ShellQuote(p)
	}
	return strings.Join(q, ", ")
}

// ExecAgentError is the cause of the agent_not_found error a selection
// naming an exec agent gets: exec agents are rolled one at a time, they are
// never cases to check.
type ExecAgentError struct {
	Agent string // the agent reference as given, exec:COMMAND
}

func (e *ExecAgentError) Error() string { return "agent " + e.Agent + " is an exec agent" }

func hasEnv(envs []env.Environment, name string) bool {
	_, err := env.FindEnv(envs, name)
	return err == nil
}
