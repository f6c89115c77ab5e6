package host

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/internal/safeio"
)

// DefaultTimeout bounds what a host is given without a rollout's budget:
// its hello, opening a world, reading a state, a verifier.
const DefaultTimeout = 2 * time.Minute

// Config says how to start the hosts of one environment.
type Config struct {
	// Name is the environment's name; a host's hello must give the same.
	Name        string
	Description string
	// Command is the argv that starts one host; Dir its working folder,
	// Env its environment (nil: oracle's own).
	Command []string
	Dir     string
	Env     []string
	// Sandbox is how its hosts are contained (see contain.go): always in
	// an environment and a folder of their own, with no variable named
	// like a credential; the zero Sandbox runs them without bubblewrap.
	Sandbox Sandbox
	// What names the host in messages, e.g. "the Node host of shop".
	What string
	// Folder is the environment's folder: its tasks are read from its
	// tasks/*.json, as for an environment of Go, and its verifier test
	// candidates from its candidates/*.json. Without a folder, the tasks
	// are those the hello lists.
	Folder string
	// Hosts is how many host processes may run at once (0: one per CPU),
	// WorldsPerHost how many worlds each is given before another starts
	// (0: 1; see the package documentation for the choice).
	Hosts, WorldsPerHost int
	// Timeout bounds an open, a state and a verify; 0 means
	// DefaultTimeout. A call is bounded by its rollout's budget instead.
	// StartTimeout bounds a host's start, until its hello; 0 means
	// Timeout.
	Timeout, StartTimeout time.Duration
	// MaxMessageBytes bounds one line of a host; 0 means safeio.MaxBytes.
	MaxMessageBytes int
	// Agents are the environment's declared regression agents: name →
	// agent reference (see env.Declared).
	Agents map[string]string
}

// Environment is an environment served by host processes. It implements
// env.Environment; Close stops its hosts.
type Environment struct {
	cfg       Config
	lang      string // the host's language (env.LangNode, env.LangPython), when a manifest named it
	tsx       string // for a Node host: the tsx it loads, which agent modules can share
	tools     []env.ToolSpec
	byName    map[string]int
	verifiers []env.VerifierInfo
	hello     []byte // the tools and verifiers of the first hello, as later hosts must repeat them
	agents    bool   // the hosts run agent modules too
	pool      *pool

	startOnce sync.Once
	startErr  error

	tasksOnce sync.Once
	tasks     []env.Task
	tasksErr  error
	helloTask []json.RawMessage

	worlds sync.Mutex
	nextID int64
}

// New returns the environment of cfg without starting a host: its name,
// tasks (read from cfg.Folder) and declared agents are there at once; the
// first use of what only a host knows (its tools, verifiers, a world)
// starts it, as Start does, which a caller may also call first to learn
// whether the host starts. Where the start fails, Open returns its error
// and there are no tools and no verifiers. Load is New for the manifest
// of a module.
func New(cfg Config) (*Environment, error) {
	if err := env.CheckName(cfg.Name); err != nil {
		return nil, fmt.Errorf("environment name: %w", err)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.StartTimeout <= 0 {
		cfg.StartTimeout = cfg.Timeout
	}
	if cfg.MaxMessageBytes <= 0 {
		cfg.MaxMessageBytes = safeio.MaxBytes
	}
	if cfg.Hosts <= 0 {
		cfg.Hosts = runtime.NumCPU()
	}
	if cfg.WorldsPerHost <= 0 {
		cfg.WorldsPerHost = 1
	}
	if cfg.What == "" {
		cfg.What = "the host of " + cfg.Name
	}
	for name := range cfg.Agents {
		if err := env.CheckName(name); err != nil {
			return nil, fmt.Errorf("environment %s: agent name: %w", cfg.Name, err)
		}
	}
	return &Environment{cfg: cfg, byName: map[string]int{}}, nil
}

// Start starts the first host and reads its hello, once; later calls
// return the first one's error.
func (e *Environment) Start() error {
	e.startOnce.Do(func() {
		c, err := dial(e.cfg.What, e.cfg.Command, e.cfg.Dir, e.cfg.Env, e.cfg.MaxMessageBytes, e.cfg.StartTimeout, e.cfg.Sandbox)
		if err != nil {
			e.startErr = fmt.Errorf("environment %s: %w", e.cfg.Name, err)
			return
		}
		if err := e.read(c.hello); err != nil {
			c.shut(time.Second)
			e.startErr = fmt.Errorf("environment %s: %s: %w", e.cfg.Name, e.cfg.What, err)
			return
		}
		e.agents = c.hello.Agents
		e.pool = newPool(c, e.cfg.Hosts, e.cfg.WorldsPerHost, e.dial)
	})
	return e.startErr
}

// started reports whether a host is there to ask, starting one if needed.
func (e *Environment) started() bool { return e.Start() == nil }

// read takes in the first hello.
func (e *Environment) read(h *message) error {
	if h.Name != e.cfg.Name {
		return fmt.Errorf("its hello names the environment %q, not %q", h.Name, e.cfg.Name)
	}
	for i, t := range h.Tools {
		if t.Name == "" {
			return fmt.Errorf("its hello's tool %d has no name", i+1)
		}
		if _, dup := e.byName[t.Name]; dup {
			return fmt.Errorf("its hello lists two tools named %s", t.Name)
		}
		schema := bytes.TrimSpace(t.InputSchema)
		if len(schema) == 0 || string(schema) == "null" {
			schema = []byte(`{"type":"object"}`)
		}
		if schema[0] != '{' && string(schema) != "true" {
			return fmt.Errorf("tool %s: its input schema is not a JSON object", t.Name)
		}
		e.byName[t.Name] = len(e.tools)
		e.tools = append(e.tools, env.ToolSpec{Name: t.Name, Description: t.Description, InputSchema: json.RawMessage(schema), ReadOnly: t.ReadOnly})
	}
	seen := map[string]bool{}
	for _, v := range h.Verifiers {
		if v.ID == "" {
			return fmt.Errorf("its hello lists a verifier without an id")
		}
		if seen[v.ID] {
			return fmt.Errorf("its hello lists two verifiers with id %s", v.ID)
		}
		seen[v.ID] = true
		e.verifiers = append(e.verifiers, v)
	}
	slices.SortFunc(e.verifiers, func(a, b env.VerifierInfo) int { return strings.Compare(a.ID, b.ID) })
	e.helloTask = h.Tasks
	e.hello = helloKey(h)
	return nil
}

// helloKey is what every host of an environment must say the same.
func helloKey(h *message) []byte {
	b, _ := json.Marshal(struct {
		T []wireTool
		V []env.VerifierInfo
		K []json.RawMessage
	}{h.Tools, h.Verifiers, h.Tasks})
	return b
}

// dial starts one more host, which must say what the first said.
func (e *Environment) dial() (*conn, error) {
	c, err := dial(e.cfg.What, e.cfg.Command, e.cfg.Dir, e.cfg.Env, e.cfg.MaxMessageBytes, e.cfg.StartTimeout, e.cfg.Sandbox)
	if err != nil {
		return nil, fmt.Errorf("environment %s: %w", e.cfg.Name, err)
	}
	if !bytes.Equal(helloKey(c.hello), e.hello) {
		c.shut(time.Second)
		return nil, fmt.Errorf("environment %s: a new host's hello lists other tools, verifiers or tasks than the first one's; the environment module must describe itself the same way every time it is loaded", e.cfg.Name)
	}
	return c, nil
}

// Close stops the environment's hosts.
func (e *Environment) Close() error {
	e.startOnce.Do(func() { e.startErr = errPoolClosed }) // none starts after
	if e.pool != nil {
		e.pool.close()
	}
	return nil
}

func (e *Environment) Name() string { return e.cfg.Name }

// Terms are the names the module's author knows its parts by (env.Authored).
func (e *Environment) Terms() env.Terms {
	switch e.lang {
	case env.LangPython:
		return env.Terms{State: "create_state", Schema: "input_schema"}
	case env.LangNode:
		return env.Terms{State: "createState", Schema: "inputSchema"}
	}
	return env.Terms{State: "the host's open", Schema: "input schema"}
}
func (e *Environment) Description() string { return e.cfg.Description }

// Folder is the environment's folder.
func (e *Environment) Folder() string { return e.cfg.Folder }

func (e *Environment) Tasks() ([]env.Task, error) {
	e.tasksOnce.Do(func() {
		e.tasks, e.tasksErr = e.loadTasks()
		if e.tasksErr != nil {
			e.tasksErr = fmt.Errorf("environment %s: %w", e.cfg.Name, e.tasksErr)
		}
	})
	return slices.Clone(e.tasks), e.tasksErr
}

// loadTasks reads the tasks of the folder, or, for an environment without
// one, of the hello.
func (e *Environment) loadTasks() ([]env.Task, error) {
	if e.cfg.Folder != "" {
		return env.LoadTasks(folderFS(e.cfg.Folder))
	}
	if err := e.Start(); err != nil {
		return nil, err
	}
	tasks := make([]env.Task, 0, len(e.helloTask))
	seen := map[string]bool{}
	for i, raw := range e.helloTask {
		t, err := env.ParseTask(fmt.Sprintf("task %d of the hello", i+1), raw)
		if err != nil {
			return nil, err
		}
		if seen[t.ID] {
			return nil, fmt.Errorf("the hello lists task %s twice; give each task its own id", t.ID)
		}
		seen[t.ID] = true
		tasks = append(tasks, t)
	}
	sort.Slice(tasks, func(i, j int) bool { return tasks[i].ID < tasks[j].ID })
	return tasks, nil
}

func (e *Environment) Verifiers() []env.VerifierInfo {
	if !e.started() {
		return []env.VerifierInfo{}
	}
	return slices.Clone(e.verifiers)
}

func (e *Environment) Verifier(id string) (env.VerifierInfo, bool) {
	if !e.started() {
		return env.VerifierInfo{}, false
	}
	i, ok := slices.BinarySearchFunc(e.verifiers, id, func(v env.VerifierInfo, id string) int { return strings.Compare(v.ID, id) })
	if !ok {
		return env.VerifierInfo{}, false
	}
	return e.verifiers[i], true
}

func (e *Environment) Tools() []env.ToolSpec {
	if !e.started() {
		return []env.ToolSpec{}
	}
	return slices.Clone(e.tools)
}

// Agents returns none: an environment of a host has no agent of Go.
func (e *Environment) Agents() []string { return []string{} }

func (e *Environment) Agent(string) (env.Agent, bool) { return nil, false }

// RegressionAgents returns the declared agents, sorted.
func (e *Environment) RegressionAgents() []string {
	names := make([]string, 0, len(e.cfg.Agents))
	for name := range e.cfg.Agents {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// AgentRef returns the reference of the declared agent called name.
func (e *Environment) AgentRef(name string) (string, bool) {
	ref, ok := e.cfg.Agents[name]
	return ref, ok
}

// CandidateFiles returns the folder, when it holds candidates/.
func (e *Environment) CandidateFiles() fs.FS {
	if e.cfg.Folder == "" || !folderFS(e.cfg.Folder).has("candidates") {
		return nil
	}
	return folderFS(e.cfg.Folder)
}

// Open opens a fresh world for task in a host of the pool.
func (e *Environment) Open(task env.Task) (env.World, error) {
	if err := e.Start(); err != nil {
		return nil, err
	}
	e.worlds.Lock()
	e.nextID++
	id := e.nextID
	e.worlds.Unlock()
	w := &world{env: e, id: id, task: task}
	if err := w.open(); err != nil {
		return nil, fmt.Errorf("environment %s: %w", e.cfg.Name, err)
	}
	return w, nil
}
