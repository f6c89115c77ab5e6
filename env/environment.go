package env

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/agent-oracle/oracle/internal/redact"
)

// Environment is an environment as the runner, the oracle and the command
// line see it, whatever the type of its state. New builds one from a
// Definition.
type Environment interface {
	Name() string
	Description() string
	// Tasks returns the environment's tasks, sorted by id.
	Tasks() ([]Task, error)
	// Verifiers returns the registered verifiers, sorted by id.
	Verifiers() []VerifierInfo
	// Verifier returns the verifier with that id.
	Verifier(id string) (VerifierInfo, bool)
	// Tools returns the specs of the environment's tools, in definition order.
	Tools() []ToolSpec
	// Agents returns the names of the Go agents built into the environment,
	// sorted.
	Agents() []string
	Agent(name string) (Agent, bool)
	// RegressionAgents returns the agents whose rollouts are frozen as
	// baselines, sorted.
	RegressionAgents() []string
	// Open makes a fresh world for one rollout of task.
	Open(task Task) (World, error)
}

// World is one rollout's state with its tools bound to it. A World is not
// safe for concurrent use; the runner serialises calls. A World may also
// implement the runner's fast paths, CanonicalWorld, ShallowWorld,
// SpecWorld, InlineWorld and ReleasingWorld; each says what the runner
// does with it and what a World without it costs.
type World interface {
	Tools() []ToolSpec
	// HasTool reports whether a tool of that name exists.
	HasTool(name string) bool
	// Call runs a tool on an input the caller has validated against the
	// tool's schema, passing it ctx. It returns the output as compact JSON,
	// or an error (a *ToolError for the agent). On error or panic the state
	// is as it was before the call. A tool that has not returned when ctx
	// ends is abandoned: Call returns a tool_abandoned error at once, the
	// world keeps (and State and Verify see) the state from before that
	// call, and it refuses further calls. Calls must not overlap.
	Call(ctx context.Context, name string, input json.RawMessage) (json.RawMessage, error)
	// State returns the current state as a JSON object. The bytes may be
	// kept and returned again until the next call: do not change them.
	State() (json.RawMessage, error)
	// Initial returns the state the rollout started from, as a JSON object.
	// The bytes may be shared with other rollouts: do not change them.
	Initial() json.RawMessage
	// Verify grades the current state against the initial one with the
	// task's verifier. A missing verifier, one that panics and one that
	// returns no required check are errors; the checks it did return, if
	// any, come back with the error. Verify ends the rollout: the verifier
	// may receive the world's own states, so afterwards Call refuses every
	// call and State returns the state as it was before Verify.
	Verify(c VerifyContext) ([]CheckResult, error)
}

// DefaultMaxOutputBytes bounds the JSON of one tool output.
const DefaultMaxOutputBytes = 16 << 20

// Definition describes an environment whose state has type S. S must
// marshal to a JSON object and survive a JSON round trip (exported fields,
// no functions or channels): the runner keeps a pristine copy of the initial
// state, restores the state when a tool fails, and diffs states through
// their JSON form.
type Definition[S any] struct {
	Name        string
	Description string
	// TaskFiles holds tasks/*.json, usually an embed.FS.
	TaskFiles fs.FS
	// NewState returns a fresh, deterministic state for one rollout of task.
	// The clock is a field of the state and randomness is seeded from the task.
	NewState func(task Task) (*S, error)
	// Seed, used when NewState is nil, returns the state a rollout of task
	// starts from, which nothing may change afterwards: the same value may
	// be returned for many tasks and rollouts (parsed once, kept in a
	// variable). Each rollout gets its own copy (see Clone), and the JSON of
	// a seed is made once, not once per rollout; the final state's JSON
	// reuses it for what still equals the seed.
	Seed      func(task Task) (*S, error)
	Tools     []Tool[S]
	Verifiers []Verifier[S]
	// Agents are reference agents compiled into the binary, by name.
	Agents map[string]Agent
	// Regression names the agents whose rollouts are frozen as baselines;
	// nil means every agent in Agents.
	Regression []string
	// MaxOutputBytes bounds one tool output's JSON; 0 means DefaultMaxOutputBytes.
	MaxOutputBytes int
	// Candidates optionally holds candidates/<TASK>.json, the labelled
	// rollouts that test the verifiers (see CandidateSource); nil means none.
	Candidates fs.FS
	// CheckReadOnly checks what tools declare they write. Every call of a
	// ReadOnly tool compares the state's JSON before and after the call: a
	// tool that changed it fails with the tool error read_only_violated.
	// Every call of a tool with Writes compares the JSON of each field it
	// does not declare: one that changed fails with writes_violated. Either
	// way the state is put back as it was before the call. It costs
	// marshals of the whole state per call, so it is for tests.
	CheckReadOnly bool
	// Redact lists the environment's volatile fields, the rules record
	// and check redact them by (see Redaction; RedactWhole and RedactMatch
	// make them). It is the "redact" list of silo.environment.json written
	// in Go, with the same meaning; declare the rules in one place, here or
	// in the project's manifest for the environment, never both. New checks
	// them as the manifest's are checked.
	Redact []Redaction
}

// New checks a definition and returns the environment it describes.
func New[S any](d Definition[S]) (Environment, error) {
	if err := CheckName(d.Name); err != nil {
		return nil, fmt.Errorf("environment name: %w", err)
	}
	if d.NewState == nil && d.Seed == nil {
		return nil, fmt.Errorf("environment %s: NewState and Seed are nil; set one of them", d.Name)
	}
	if d.TaskFiles == nil {
		return nil, fmt.Errorf("environment %s: TaskFiles is nil", d.Name)
	}
	st := reflect.TypeFor[S]()
	e := &environment[S]{def: d, tools: map[string]*boundTool[S]{}, verifiers: map[string]*Verifier[S]{},
		copyable: copyable(st), copy: copierFor(st), fields: stateFields(st), shallow: shallowState(st)}
	e.spliced = splicedFields(st, e.fields)
	for i := range d.Tools {
		t := &d.Tools[i]
		if t.Name == "" || t.Run == nil {
			return nil, fmt.Errorf("environment %s: tool %d has no name or no Run", d.Name, i)
		}
		if _, dup := e.tools[t.Name]; dup {
			return nil, fmt.Errorf("environment %s: two tools named %s", d.Name, t.Name)
		}
		schema := t.InputSchema
		if schema == "" {
			schema = `{"type":"object"}`
		}
		var probe map[string]any
		if err := json.Unmarshal([]byte(schema), &probe); err != nil {
			return nil, fmt.Errorf("environment %s: tool %s: input schema is not a JSON object: %w", d.Name, t.Name, err)
		}
		writes, whole, members, err := declaredWrites(st, e.fields, t.Name, t.ReadOnly, t.Writes)
		if err != nil {
			return nil, fmt.Errorf("environment %s: %w", d.Name, err)
		}
		e.tools[t.Name] = &boundTool[S]{Tool: t, writes: writes, whole: whole, members: members, spec: len(e.specs)}
		e.specs = append(e.specs, ToolSpec{Name: t.Name, Description: t.Description, InputSchema: json.RawMessage(schema), ReadOnly: t.ReadOnly})
	}
	for i := range d.Verifiers {
		v := &d.Verifiers[i]
		if v.ID == "" || v.Check == nil {
			return nil, fmt.Errorf("environment %s: verifier %d has no id or no Check", d.Name, i)
		}
		if _, dup := e.verifiers[v.ID]; dup {
			return nil, fmt.Errorf("environment %s: two verifiers with id %s", d.Name, v.ID)
		}
		e.verifiers[v.ID] = v
	}
	if _, err := redact.New(d.Redact...); err != nil {
		return nil, fmt.Errorf("environment %s: %w", d.Name, err)
	}
	e.def.Redact = slices.Clone(d.Redact)
	for name := range d.Agents {
		if err := CheckName(name); err != nil {
			return nil, fmt.Errorf("environment %s: agent name: %w", d.Name, err)
		}
	}
	for _, name := range d.Regression {
		if _, ok := d.Agents[name]; !ok {
			return nil, fmt.Errorf("environment %s: regression agent %s is not among its agents", d.Name, name)
		}
	}
	return e, nil
}

type environment[S any] struct {
	def       Definition[S]
	tools     map[string]*boundTool[S]
	specs     []ToolSpec
	verifiers map[string]*Verifier[S]
	// copyable says whether S is copied by copy (see Clone) rather than
	// through JSON; fields are its top-level fields when it is a struct.
	copyable bool
	copy     *copier
	fields   []stateField
	// shallow says that S's type bounds the nesting of its JSON within
	// safeio.MaxDepth (see depthBound)
	shallow bool
	// spliced says that a state's JSON can be made from its seed's (see
	// stateJSON)
	spliced bool
	// buffers holds the buffers of final states' JSON (see Release)
	buffers buffers

	seedsMu sync.Mutex
	seeds   map[*S]*seedRecord[S] // each seed Seed returned, with its JSON

	tasksOnce sync.Once
	tasks     []Task
	tasksErr  error
}

func (e *environment[S]) Name() string        { return e.def.Name }
func (e *environment[S]) Description() string { return e.def.Description }
func (e *environment[S]) Tools() []ToolSpec   { return append([]ToolSpec(nil), e.specs...) }

func (e *environment[S]) Tasks() ([]Task, error) {
	e.tasksOnce.Do(func() {
		e.tasks, e.tasksErr = LoadTasks(e.def.TaskFiles)
		if e.tasksErr != nil {
			e.tasksErr = fmt.Errorf("environment %s: %w", e.def.Name, e.tasksErr)
		}
	})
	return append([]Task(nil), e.tasks...), e.tasksErr
}

func (e *environment[S]) Verifiers() []VerifierInfo {
	out := make([]VerifierInfo, 0, len(e.verifiers))
	for _, v := range e.verifiers {
		out = append(out, VerifierInfo{ID: v.ID, TaskID: v.TaskID, Name: v.Name})
	}
	slices.SortFunc(out, func(a, b VerifierInfo) int { return strings.Compare(a.ID, b.ID) })
	return out
}

func (e *environment[S]) Verifier(id string) (VerifierInfo, bool) {
	v, ok := e.verifiers[id]
	if !ok {
		return VerifierInfo{}, false
	}
	return VerifierInfo{ID: v.ID, TaskID: v.TaskID, Name: v.Name}, true
}

func (e *environment[S]) Agents() []string {
	names := make([]string, 0, len(e.def.Agents))
	for name := range e.def.Agents {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// Redactions makes every environment New builds a RedactingEnvironment.
func (e *environment[S]) Redactions() []Redaction { return slices.Clone(e.def.Redact) }

func (e *environment[S]) Agent(name string) (Agent, bool) {
	a, ok := e.def.Agents[name]
	return a, ok
}

func (e *environment[S]) RegressionAgents() []string {
	if e.def.Regression == nil {
		return e.Agents()
	}
	names := append([]string(nil), e.def.Regression...)
	sort.Strings(names)
	return names
}

func (e *environment[S]) Open(task Task) (World, error) {
	s, initial, seed, err := e.newState(task)
	if err != nil {
		return nil, fmt.Errorf("environment %s: %w", e.def.Name, err)
	}
	limit := e.def.MaxOutputBytes
	if limit <= 0 {
		limit = DefaultMaxOutputBytes
	}
	w := &world[S]{env: e, task: task, state: s, initial: initial, seed: seed, maxOutput: limit}
	if e.copyable {
		// the pristine initial state, for the verifier, without decoding
		// initial: it shares every field with the state until a tool is
		// about to write it (see detach), except in the checked mode,
		// where a tool that writes what it did not declare must not reach it
		w.pristine = new(S)
		if e.def.CheckReadOnly {
			deepCopy(w.pristine, s)
			w.ownAll()
		} else {
			*w.pristine = *s
		}
	}
	return w, nil
}

// FindTask returns e's task with that id, or an error that lists the tasks
// there are.
func FindTask(e Environment, id string) (Task, error) {
	tasks, err := e.Tasks()
	if err != nil {
		return Task{}, err
	}
	ids := make([]string, len(tasks))
	for i, t := range tasks {
		if t.ID == id {
			return t, nil
		}
		ids[i] = t.ID
	}
	return Task{}, &Error{Code: CodeTaskNotFound, Known: ids,
		Message: fmt.Sprintf("no task %s in %s; tasks: %s", id, e.Name(), NameList(ids))}
}

// FindEnv returns the environment of envs called name, or an error that
// lists the environments there are.
func FindEnv(envs []Environment, name string) (Environment, error) {
	names := make([]string, len(envs))
	for i, e := range envs {
		if e.Name() == name {
			return e, nil
		}
		names[i] = e.Name()
	}
	return nil, &Error{Code: CodeEnvNotFound, Known: names,
		Message: fmt.Sprintf("no environment %s; environments: %s", name, NameList(names))}
}
