package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agent-oracle/oracle/env"
)

// ModuleGrace is how long a module agent that was stopped (its rollout's
// budget ran out) is given to return before it is given up.
const ModuleGrace = 2 * time.Second

// ModuleAgent returns the agent a module:PATH reference names: a Node
// module (.ts, .mts, .js, .mjs) that default-exports
//
//	async function agent({ task, tools, callTool, signal }): Promise<{ output }>
//
// as the original runner's agents do. It runs in a long-lived Node process
// that oracle shares between rollouts (so a rollout does not pay for
// Node's and tsx's start): the module is imported once per process, and
// what it keeps at module level survives from one rollout to the next.
// callTool resolves to {output, isError}; once the rollout's budget has
// run out, signal is aborted and callTool rejects. A TypeScript module
// needs tsx, found from the module's folder upward or through ORACLE_TSX.
// path must be absolute; the process starts (once) here, so that its
// start is not counted in a rollout's budget. Such a module is the author's own code, run
// like an agent compiled into the binary; run an untrusted one as an exec:
// agent, in the sandbox.
func ModuleAgent(path string) (env.Agent, error) { return ModuleAgentFor(nil, path) }

// ModuleAgentFor is ModuleAgent for rollouts of e: when e is an
// environment of the Node host that loads the module's kind (tsx for
// TypeScript), the module runs in e's own host processes, beside the
// worlds, so that no further process starts.
func ModuleAgentFor(e env.Environment, path string) (env.Agent, error) {
	if !filepath.IsAbs(path) {
		return nil, fmt.Errorf("module:%s: the path must be absolute", path)
	}
	if env.EntrypointLang(path) != env.LangNode {
		return nil, &env.Error{Code: env.CodeAgentNotFound, Message: fmt.Sprintf(
			"module:%s: a module agent is a Node module (.ts, .mts, .js or .mjs); run an agent in another language as exec:COMMAND", path)}
	}
	if err := checkModule(path); err != nil {
		return nil, &env.Error{Code: env.CodeAgentNotFound, Message: fmt.Sprintf("module:%s: %v", path, err)}
	}
	tsx := ""
	if needsTSX(path) {
		var err error
		root := filepath.Dir(path) // the lookup stops at the project's folder, or the module's
		if h, ok := e.(*Environment); ok && h.cfg.Dir != "" && within(path, h.cfg.Dir) {
			root = h.cfg.Dir
		}
		if tsx, err = findTSX(filepath.Dir(path), root); err != nil {
			return nil, fmt.Errorf("module:%s: %w", path, err)
		}
	}
	a := &moduleAgent{path: path, tsx: tsx}
	if h, ok := e.(*Environment); ok && h.lang == env.LangNode && (tsx == "" || tsx == h.tsx) && h.Start() == nil {
		a.env = h
		return a, nil
	}
	// the process starts now, outside the rollout's budget
	if _, err := a.conn(); err != nil {
		return nil, fmt.Errorf("module:%s: %w", path, err)
	}
	return a, nil
}

// PythonAgentFor returns the agent a python:PATH reference names: a Python
// module that defines
//
//	def agent(task, tools, call_tool): return {"output": ...}
//
// (called with keywords: task, the instruction; tools, their names,
// descriptions and input schemas; call_tool(name, input), which returns
// {"output", "isError"} and raises once the rollout has ended). It runs in
// a long-lived Python process of oracle's Python host, like a module:
// agent in Node: the module is imported once per process, and what it
// keeps at module level survives from one rollout to the next. When e is
// an environment of the Python host, the agent runs in e's own hosts.
// path must be absolute. Such a module is the author's own code; run an
// untrusted one as an exec: agent, in the sandbox.
func PythonAgentFor(e env.Environment, path string) (env.Agent, error) {
	if !filepath.IsAbs(path) {
		return nil, fmt.Errorf("python:%s: the path must be absolute", path)
	}
	if env.EntrypointLang(path) != env.LangPython {
		return nil, &env.Error{Code: env.CodeAgentNotFound, Message: fmt.Sprintf(
			"python:%s: a python agent is a Python module (.py); run a Node module as module:PATH, anything else as exec:COMMAND", path)}
	}
	if err := checkModule(path); err != nil {
		return nil, &env.Error{Code: env.CodeAgentNotFound, Message: fmt.Sprintf("python:%s: %v", path, err)}
	}
	a := &moduleAgent{path: path, python: true}
	if h, ok := e.(*Environment); ok && h.lang == env.LangPython && h.Start() == nil {
		a.env = h
		return a, nil
	}
	// the process starts now, outside the rollout's budget
	if _, err := a.conn(); err != nil {
		return nil, fmt.Errorf("python:%s: %w", path, err)
	}
	return a, nil
}

type moduleAgent struct {
	path   string
	tsx    string       // the tsx API file the process registers, or ""
	python bool         // a Python module, run by the Python host
	env    *Environment // whose hosts run the module; nil: a shared process
}

// conn returns the process that runs the module.
func (a *moduleAgent) conn() (*conn, error) {
	switch {
	case a.env != nil:
		return a.env.pool.any()
	case a.python:
		return agentConn(pythonAgents, func() ([]string, error) { return pythonCommand("", "") }, "the Python host of agents")
	}
	return agentConn(a.tsx, func() ([]string, error) { return nodeCommand("", "", a.tsx, "") }, "the Node host of agent modules")
}

// pythonAgents is the key of the Python process among agentHosts' (the
// others are keyed by the tsx they load, a path, which holds no NUL).
const pythonAgents = "\x00python"

// The processes that run agent modules: Node ones by the tsx they load,
// and the Python one.
var agentHosts struct {
	mu    sync.Mutex
	conns map[string]*conn
}

// agentConn returns the process of key that runs agent modules, started
// once (with the argv command makes) and again after it failed.
func agentConn(key string, command func() ([]string, error), what string) (*conn, error) {
	agentHosts.mu.Lock()
	defer agentHosts.mu.Unlock()
	if c := agentHosts.conns[key]; c != nil && c.broken() == nil {
		return c, nil
	}
	argv, err := command()
	if err != nil {
		return nil, err
	}
	c, err := dial(what, argv, "", nil, maxAgentLine, DefaultTimeout, Sandbox{})
	if err != nil {
		return nil, err
	}
	if !c.hello.Agents {
		c.shut(time.Second)
		return nil, fmt.Errorf("%s does not run agent modules", what)
	}
	if agentHosts.conns == nil {
		agentHosts.conns = map[string]*conn{}
	}
	agentHosts.conns[key] = c
	return c, nil
}

// codeAgentStartFailed is the error of an agent module that did not load
// or defines no agent: the agent never started.
const codeAgentStartFailed = "agent_start_failed"

// maxAgentLine bounds a line of the agent host: a tool call or an output.
const maxAgentLine = 64 << 20

// Shutdown stops the Node processes that run agent modules. A command
// calls it when it is done; a process that exits without it takes them
// along (they exit when their stdin closes).
func Shutdown() {
	agentHosts.mu.Lock()
	conns := agentHosts.conns
	agentHosts.conns = nil
	agentHosts.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.shut(time.Second)
		}()
	}
	wg.Wait()
}

// Run runs the module for one rollout: its tool calls go through in.Call,
// its output is the rollout's.
func (a *moduleAgent) Run(ctx context.Context, in env.AgentInput) (any, error) {
	c, err := a.conn()
	if err != nil {
		return nil, err
	}
	tools := in.Tools
	if tools == nil {
		tools = []env.ToolSpec{}
	}
	id, box, err := c.stream(func(id int64) ([]byte, error) {
		return request("agent", id, "module", a.path, "task", in.Task, "tools", tools)
	})
	if err != nil {
		return nil, err
	}
	defer c.unstream(id)
	var grace <-chan time.Time
	stopped := ctx.Done()
	called := false // the agent made a tool call
	for {
		select {
		case <-box.ready:
		case <-stopped:
			stopped = nil
			reason := env.StopReason(context.Cause(ctx))
			if reason == "" {
				reason = "cancelled"
			}
			stop, _ := request("stop", id, "reason", reason)
			c.tell(stop)
			t := time.NewTimer(ModuleGrace)
			defer t.Stop()
			grace = t.C
			continue
		case <-grace:
			a.checkAlive(c)
			return nil, fmt.Errorf("module %s did not return after it was stopped: %w", a.path, context.Cause(ctx))
		}
		for {
			m, closed := box.take()
			if m == nil {
				if closed {
					return nil, fmt.Errorf("module %s: %w", a.path, c.broken())
				}
				break
			}
			switch m.Type {
			case "tool_call":
				called = true
				var input any
				if len(m.Input) > 0 && string(m.Input) != "null" {
					input = m.Input
				}
				r := in.Call(ctx, m.Tool, input)
				line, err := request("tool_result", id, "call", m.Call, "isError", r.IsError, "output", r.Output)
				if err == nil {
					err = c.tell(line)
				}
				if err != nil && c.broken() != nil {
					return nil, fmt.Errorf("module %s: %w", a.path, c.broken())
				}
			case "agent_output":
				if ctx.Err() != nil {
					return nil, context.Cause(ctx)
				}
				if len(m.Output) == 0 || string(m.Output) == "null" {
					return nil, nil
				}
				return json.RawMessage(m.Output), nil
			case "error":
				if m.Error == nil {
					return nil, fmt.Errorf("module %s failed", a.path)
				}
				if ctx.Err() != nil {
					return nil, context.Cause(ctx)
				}
				err := errors.New(printable(strings.TrimSpace(m.Error.Message)))
				if m.Error.Code == codeAgentStartFailed && !called {
					// it never started: trouble of the run, not a behaviour to grade
					return nil, env.Infrastructure(fmt.Errorf("the agent did not start: %w", err))
				}
				return nil, err
			default:
				c.fail(fmt.Errorf("%s sent a %s message for an agent", c.p.what, m.Type))
				return nil, fmt.Errorf("module %s: %w", a.path, c.broken())
			}
		}
	}
}

// checkAlive stops the agent host when it no longer answers (a module
// stuck in a loop that never yields holds the whole process), so that the
// next rollout gets a fresh one.
func (a *moduleAgent) checkAlive(c *conn) {
	_, err := c.ask(context.Background(), time.Second, func(id int64) ([]byte, error) {
		return request("ping", id)
	})
	if errors.Is(err, errGaveUp) {
		c.stop(fmt.Errorf("%s was stopped: module %s never returned", c.p.what, a.path))
	}
}
