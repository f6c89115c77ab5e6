package command

import (
	"fmt"
	"io"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agent-oracle/oracle/agent/mcpserve"
	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/runner"
	"github.com/urfave/cli/v2"
)

// defaultServeTimeout is a served rollout's time budget: a model driven by
// a framework over MCP takes longer than a scripted agent.
const defaultServeTimeout = 30 * time.Minute

// serveOptions are serve's flags.
type serveOptions struct {
	flags
	Env, Task    string
	Tasks        cli.StringSlice
	HTTP         string
	MaxSessions  int
	IdleTimeout  time.Duration
	AllowOrigin  cli.StringSlice
	MaxToolCalls int
	Timeout      time.Duration
}

func serveCommand(envs Environments) *cli.Command {
	o := &serveOptions{}
	o.String(&o.Env, &cli.StringFlag{Name: envFlag, Aliases: []string{"e"}, Usage: "environment `name` (default: the one that has the task)"})
	o.String(&o.Task, &cli.StringFlag{Name: "task", Aliases: []string{"t"}, Usage: "task `id` to serve, e.g. TASK-002"})
	o.Strings(&o.Tasks, &cli.StringSliceFlag{Name: "tasks", Usage: "serve several tasks of --env, chosen by the client with start_task: ids or globs (`IDS`, comma-separated; '*' for all)"})
	o.String(&o.HTTP, &cli.StringFlag{Name: "http", Usage: "serve Streamable HTTP on `ADDR` (PORT or HOST:PORT; a bare port listens on 127.0.0.1) instead of stdio"})
	o.Int(&o.MaxSessions, &cli.IntFlag{Name: "max-sessions", Value: mcpserve.DefaultMaxSessions, Usage: "with --http: the sessions (rollouts) open at once; a client opening one more is refused (503)"})
	o.Duration(&o.IdleTimeout, &cli.DurationFlag{Name: "idle-timeout", Value: mcpserve.DefaultIdleTimeout, Usage: "with --http: a session without a request for this long is closed and its rollout ended (agent_error, run folder written)"})
	o.Strings(&o.AllowOrigin, &cli.StringSliceFlag{Name: "allow-origin", Usage: "with --http: also serve the web pages of `ORIGIN` (scheme://host[:port], repeatable; * for any); a request with another Origin header is refused (403), as the MCP specification requires; pages of the loopback host and clients that send no Origin are served"})
	o.Int(&o.MaxToolCalls, &cli.IntFlag{Name: "max-tool-calls", Value: runner.DefaultMaxToolCalls, Usage: "tool-call budget of each rollout"})
	o.Duration(&o.Timeout, &cli.DurationFlag{Name: "timeout", Value: defaultServeTimeout, Usage: "time budget of each rollout"})
	return &cli.Command{
		Name:      "serve",
		Usage:     "serve a task as an MCP server: any MCP client is the agent",
		ArgsUsage: " ",
		Description: "Serves the task over the Model Context Protocol, on stdin/stdout (so a client can launch it as a\n" +
			"subprocess) or, with --http, as Streamable HTTP. Each MCP session is one rollout in a fresh world through\n" +
			"the same runner as every agent: the environment's tools with their schemas, the task's instruction as the\n" +
			"server's instructions and as a prompt, and a submit_answer tool that ends the rollout with its answer.\n" +
			"A budget running out or the session closing ends it too. The run folder is written to .silo/runs/<runId>/\n" +
			"before submit_answer replies; the grade is printed here on stderr, never sent to the client.\n" +
			"With --tasks, several tasks are served and the client starts each through a start_task tool.\n" +
			"Over --http, sessions are capped (--max-sessions), an idle one is closed (--idle-timeout), and a request\n" +
			"from a web page of another origin is refused (403; --allow-origin lets one in).\n" +
			"Freeze a served run as a regression case with: record --agent replay:.silo/runs/<runId>/trace.jsonl",
		Flags:  o.list,
		Action: func(c *cli.Context) error { return o.run(c, envs) },
	}
}

// run serves the task or tasks until the client ends.
func (o *serveOptions) run(c *cli.Context, envs Environments) error {
	if c.NArg() > 0 {
		return usageError("serve takes no arguments, got %q; name the task with --task", c.Args().First())
	}
	if err := positive(&o.flags, &o.MaxToolCalls, &o.Timeout); err != nil {
		return err
	}
	if (o.Task == "") == (len(o.Tasks.Value()) == 0) {
		return usageError("name one task with --task, or several with --tasks")
	}
	if a := o.HTTP; a != "" {
		if _, err := mcpserve.ListenAddr(a); err != nil {
			return usageError("%v", err)
		}
	} else {
		if flag := o.given(c, &o.MaxSessions, &o.IdleTimeout, &o.AllowOrigin); flag != "" {
			return usageError("%s is for --http: stdio serves one session, its client's", flag)
		}
	}
	if o.MaxSessions <= 0 || o.IdleTimeout <= 0 {
		return usageError("--max-sessions and --idle-timeout must be positive")
	}
	for _, origin := range o.AllowOrigin.Value() {
		if err := mcpserve.CheckOrigin(origin); err != nil {
			return usageError("%v", err)
		}
	}
	folder, cat, err := projectCatalog(c, envs, o.Env)
	if err != nil {
		return err
	}
	e, tasks, err := servedTasks(cat, o.Env, o.Task, o.Tasks.Value())
	if err != nil {
		return err
	}
	var mu sync.Mutex // reports of concurrent sessions do not interleave
	srv, err := mcpserve.New(mcpserve.Config{
		Env: e, Tasks: tasks, RunsDir: filepath.Join(folder, runner.RunsDir), Version: c.App.Version,
		MaxSessions: o.MaxSessions, IdleTimeout: o.IdleTimeout, AllowOrigins: o.AllowOrigin.Value(),
		Run: runner.Config{MaxToolCalls: o.MaxToolCalls, Timeout: o.Timeout, Agent: mcpserve.Agent},
		Report: func(o *runner.Outcome, dir string, err error) {
			mu.Lock()
			defer mu.Unlock()
			w := c.App.ErrWriter
			if err != nil {
				fmt.Fprintf(w, "error: %v\n", err)
				return
			}
			printRun(w, newStyle(c, w), o, mcpserve.Agent, dir)
		},
		Sessions: func(ev mcpserve.SessionEvent) {
			mu.Lock()
			defer mu.Unlock()
			printSession(c.App.ErrWriter, ev)
		},
	})
	if err != nil {
		return err
	}
	if addr := o.HTTP; addr != "" {
		return srv.ServeHTTP(c.Context, addr, func(url string) {
			fmt.Fprintf(c.App.ErrWriter, "serving %s %s over MCP at %s\n", e.Name(), servedIDs(tasks), url)
		})
	}
	fmt.Fprintf(c.App.ErrWriter, "serving %s %s over MCP on stdin/stdout\n", e.Name(), servedIDs(tasks))
	return srv.ServeStdio(c.Context, nil)
}

// servedTasks resolves --task or --tasks.
func servedTasks(cat *catalog, envName, task string, patterns []string) (env.Environment, []env.Task, error) {
	if task != "" {
		e, t, err := cat.task(envName, task)
		if err != nil {
			return nil, nil, err
		}
		return e, []env.Task{t}, nil
	}
	if envName == "" {
		return nil, nil, usageError("--tasks serves tasks of one environment; name it with --env")
	}
	e, err := cat.env(envName)
	if err != nil {
		return nil, nil, err
	}
	all, err := e.Tasks()
	if err != nil {
		return nil, nil, err
	}
	ids := make([]string, len(all))
	for i, t := range all {
		ids[i] = t.ID
	}
	var out []env.Task
	for _, p := range patterns {
		p = strings.TrimSpace(p)
		if p == "all" {
			p = "*"
		}
		n := len(out)
		for _, t := range all {
			if ok, _ := path.Match(p, t.ID); ok && !containsTask(out, t.ID) {
				out = append(out, t)
			}
		}
		if len(out) == n && !matchesAny(p, out) {
			return nil, nil, &env.Error{Code: env.CodeTaskNotFound, Known: ids,
				Message: fmt.Sprintf("no task %s in %s; tasks: %s", p, e.Name(), env.NameList(ids))}
		}
	}
	return e, out, nil
}

func containsTask(list []env.Task, id string) bool {
	for _, t := range list {
		if t.ID == id {
			return true
		}
	}
	return false
}

func matchesAny(pattern string, list []env.Task) bool {
	for _, t := range list {
		if ok, _ := path.Match(pattern, t.ID); ok {
			return true
		}
	}
	return false
}

func servedIDs(tasks []env.Task) string {
	ids := make([]string, len(tasks))
	for i, t := range tasks {
		ids[i] = t.ID
	}
	return env.NameList(ids)
}

// printSession logs a session's start or end on w; the client's name is
// its own words, quoted and escaped.
func printSession(w io.Writer, ev mcpserve.SessionEvent) {
	id := "over stdio"
	if ev.ID != "" {
		id = ev.ID
	}
	rollouts := fmt.Sprintf("%d rollouts", ev.Rollouts)
	if ev.Rollouts == 1 {
		rollouts = "1 rollout"
	}
	switch {
	case !ev.Ended:
		fmt.Fprintf(w, "session %s started: client %q\n", id, ev.Client)
	case ev.Unfinished:
		fmt.Fprintf(w, "session %s ended (%s) before submit_answer: its rollout ends as agent_error, its run folder written\n", id, rollouts)
	default:
		fmt.Fprintf(w, "session %s ended (%s)\n", id, rollouts)
	}
}
