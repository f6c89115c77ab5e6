package command

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/oracle"
	"github.com/agent-oracle/oracle/runner"
	"github.com/urfave/cli/v2"
)

// selectionFlags narrow the cases of record and check; agentUsage is the
// command's own help for --agent.
func selectionFlags(agentUsage string) []cli.Flag {
	return append([]cli.Flag{
		&cli.StringSliceFlag{Name: "env", Aliases: []string{"e"}, Usage: "only environments matching `glob` (repeatable)"},
		&cli.StringSliceFlag{Name: "agent", Aliases: []string{"a"}, Usage: agentUsage},
		&cli.StringSliceFlag{Name: "task", Aliases: []string{"t"}, Usage: "only tasks matching `glob` (repeatable)"},
		&cli.StringFlag{Name: "shard", Usage: "run only shard `i/n` of the cases (1 ≤ i ≤ n), split by a stable hash of each case"},
		&cli.IntFlag{Name: "repeat", Value: 2, Usage: "runs of each case; they must agree"},
		&cli.IntFlag{Name: "jobs", Aliases: []string{"j"}, Value: runtime.NumCPU(), Usage: "cases run at once"},
		&cli.IntFlag{Name: "max-tool-calls", Value: runner.DefaultMaxToolCalls, Usage: "tool-call budget of each rollout"},
		&cli.DurationFlag{Name: "timeout", Value: runner.DefaultTimeout, Usage: "time budget of each rollout"},
		agentEnvFlag(),
		&cli.StringSliceFlag{Name: "artifacts", Usage: "freeze and compare only these `artifacts` (comma-separated or repeated): " +
			strings.Join(env.BaselineArtifacts, ", ") + "; overrides the \"baselines\" of each environment's silo.environment.json (default: all)"},
	}, append(sandboxFlags(), modelFlags()...)...)
}

// selection reads the selection flags.
func selection(c *cli.Context) (oracle.Selection, error) {
	sel := oracle.Selection{Envs: c.StringSlice("env"), Agents: c.StringSlice("agent"), Tasks: c.StringSlice("task")}
	if c.IsSet("shard") { // an empty --shard "$UNSET" is an error, never every case
		shard, err := oracle.ParseShard(c.String("shard"))
		if err != nil {
			return sel, usageError("--shard %v", err)
		}
		sel.Shard = shard
	}
	if err := sel.Validate(); err != nil {
		return sel, usageError("%v", err)
	}
	return sel, nil
}

// options reads the flags shared by record and check; the sandboxes
// say, once the cases ran, how their exec agents were contained.
func options(c *cli.Context) (oracle.Options, *sandboxes, error) {
	if err := positive(c, "repeat", "jobs", "max-tool-calls", "timeout"); err != nil {
		return oracle.Options{}, nil, err
	}
	res, err := resolver(c)
	if err != nil {
		return oracle.Options{}, nil, err
	}
	sb := &sandboxes{}
	o := oracle.Options{
		Repeat: c.Int("repeat"),
		Jobs:   c.Int("jobs"),
		Config: runner.Config{MaxToolCalls: c.Int("max-tool-calls"), Timeout: c.Duration("timeout")},
		Resolve: func(e env.Environment, ref string) (env.Agent, error) {
			a, err := res.Resolve(e, ref)
			sb.add(sandboxOf(a))
			return a, err
		},
	}
	o.Progress = newProgress(c.App.ErrWriter, isTerminal(c.App.ErrWriter))
	return o, sb, nil
}

// sandboxes notes how the exec agents a command resolved were contained,
// for its --json output.
type sandboxes struct {
	mu   sync.Mutex
	seen map[runner.SandboxMode]bool
}

func (s *sandboxes) add(m runner.SandboxMode) {
	if m == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen == nil {
		s.seen = map[runner.SandboxMode]bool{}
	}
	s.seen[m] = true
}

// mode is none when any exec agent ran without the sandbox, bwrap when
// all ran in it, "" when no exec agent ran.
func (s *sandboxes) mode() runner.SandboxMode {
	if s == nil {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.seen[runner.SandboxNone]:
		return runner.SandboxNone
	case s.seen[runner.SandboxBwrap]:
		return runner.SandboxBwrap
	}
	return ""
}

// selectCases loads the environments and returns the selected cases of
// the project and its baseline store.
func selectCases(c *cli.Context, envs Environments, sel oracle.Selection) (*oracle.Selected, *baseline.Store, error) {
	dir, err := project(c)
	if err != nil {
		return nil, nil, err
	}
	for _, a := range sel.Agents {
		if strings.HasPrefix(a, "replay:") {
			return nil, nil, usageError("--agent %s: check runs the replay cases under %s; make one with %s record --agent replay:PATH", a, oracle.TracesDir, c.App.Name)
		}
	}
	cat, err := loadCatalog(envs)
	if err != nil {
		return nil, nil, err
	}
	store := openStore(c, dir)
	selected, err := oracle.Select(dir, cat.envs, sel, store.List)
	if err != nil {
		return nil, nil, flagSelectError(err, c.App.Name)
	}
	if comparesBaselines(c) {
		// after the selection, whose names are checked first
		if err := requireProject(c, dir); err != nil {
			return nil, nil, err
		}
	}
	var override []string
	if c.IsSet("artifacts") {
		override = c.StringSlice("artifacts")
		if override == nil {
			override = []string{}
		}
	}
	if err := selected.FreezeFiles(dir, override); err != nil {
		if override != nil {
			return nil, nil, usageError("--%v", err) // the library's "artifacts: …"
		}
		return nil, nil, err
	}
	return selected, store, nil
}

// reworded is a library error worded for the command line, which still
// matches what it rewords.
type reworded struct {
	msg string
	err error
}

func (r *reworded) Error() string { return r.msg }
func (r *reworded) Unwrap() error { return r.err }

// flagSelectError words the error of a selection that holds no case with
// the flags that made it, and names the --agent flag in the error of a
// selection that names an exec agent, and the command that rolls one.
func flagSelectError(err error, program string) error {
	if nc, ok := errors.AsType[*oracle.NoCaseError](err); ok {
		// the patterns as the flags that gave them
		return &reworded{err: err, msg: nc.Describe(func(kind, quoted string) string { return "--" + kind + " " + quoted },
			"make a case with "+program+" record --agent replay:PATH")}
	}
	ex, ok := errors.AsType[*oracle.ExecAgentError](err)
	if !ok {
		return err
	}
	e, _ := errors.AsType[*env.Error](err)
	if e == nil {
		return err
	}
	return &env.Error{Code: e.Code, Known: e.Known, Err: ex, Message: fmt.Sprintf(
		"--agent %s names no case: cases are the regression agents of the environments and the replay cases under %s; roll an exec agent with %s run --agent %s", ex.Agent, oracle.TracesDir, program, ex.Agent)}
}

// openStore is the baseline store of the project at dir, whose errors name
// this binary's commands.
func openStore(c *cli.Context, dir string) *baseline.Store {
	s := baseline.Open(dir)
	s.Program = c.App.Name
	return s
}
