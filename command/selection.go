package command

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/oracle"
	"github.com/agent-oracle/oracle/runner"
	"github.com/urfave/cli/v2"
)

// caseOptions are the flags record and check share: which cases (the
// selection), and how they run.
type caseOptions struct {
	fs *flags

	Env, Agent, Task cli.StringSlice
	Shard            string
	Repeat, Jobs     int
	MaxToolCalls     int
	Timeout          time.Duration
	Artifacts        cli.StringSlice
	agents           agentOptions
}

// add adds the flags to fs; agentUsage is the command's own help for
// --agent.
func (o *caseOptions) add(fs *flags, agentUsage string) {
	o.fs = fs
	fs.Strings(&o.Env, &cli.StringSliceFlag{Name: envFlag, Aliases: []string{"e"}, Usage: "only environments matching `glob` (repeatable)"})
	fs.Strings(&o.Agent, &cli.StringSliceFlag{Name: "agent", Aliases: []string{"a"}, Usage: agentUsage})
	fs.Strings(&o.Task, &cli.StringSliceFlag{Name: "task", Aliases: []string{"t"}, Usage: "only tasks matching `glob` (repeatable)"})
	fs.String(&o.Shard, &cli.StringFlag{Name: "shard", Usage: "run only shard `i/n` of the cases (1 ≤ i ≤ n), split by a stable hash of each case"})
	fs.Int(&o.Repeat, &cli.IntFlag{Name: "repeat", Value: 2, Usage: "runs of each case; they must agree"})
	fs.Int(&o.Jobs, &cli.IntFlag{Name: "jobs", Aliases: []string{"j"}, Value: runtime.NumCPU(), Usage: "cases run at once"})
	fs.Int(&o.MaxToolCalls, &cli.IntFlag{Name: "max-tool-calls", Value: runner.DefaultMaxToolCalls, Usage: "tool-call budget of each rollout"})
	fs.Duration(&o.Timeout, &cli.DurationFlag{Name: "timeout", Value: runner.DefaultTimeout, Usage: "time budget of each rollout"})
	o.agents.envFlag(fs)
	fs.Strings(&o.Artifacts, &cli.StringSliceFlag{Name: "artifacts", Usage: "freeze and compare only these `artifacts` (comma-separated or repeated): " +
		strings.Join(env.BaselineArtifacts, ", ") + "; overrides the \"baselines\" of each environment's silo.environment.json (default: all)"})
	o.agents.sandboxFlags(fs)
	o.agents.modelFlags(fs)
}

// selectionGiven is the first selection flag the command line of c gave,
// spelled --name, or "".
func (o *caseOptions) selectionGiven(c *cli.Context) string {
	return o.fs.given(c, &o.Env, &o.Agent, &o.Task, &o.Shard)
}

// selection is the selection the flags make.
func (o *caseOptions) selection(c *cli.Context) (oracle.Selection, error) {
	sel := oracle.Selection{Envs: o.Env.Value(), Agents: o.Agent.Value(), Tasks: o.Task.Value()}
	if o.fs.isSet(c, &o.Shard) { // an empty --shard "$UNSET" is an error, never every case
		shard, err := oracle.ParseShard(o.Shard)
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

// options are the run options of record and check; the sandboxes say,
// once the cases ran, how their exec agents were contained.
func (o *caseOptions) options(c *cli.Context) (oracle.Options, *sandboxes, error) {
	if err := positive(o.fs, &o.Repeat, &o.Jobs, &o.MaxToolCalls, &o.Timeout); err != nil {
		return oracle.Options{}, nil, err
	}
	res, err := o.agents.resolver(c)
	if err != nil {
		return oracle.Options{}, nil, err
	}
	sb := &sandboxes{}
	opts := oracle.Options{
		Repeat: o.Repeat,
		Jobs:   o.Jobs,
		Config: runner.Config{MaxToolCalls: o.MaxToolCalls, Timeout: o.Timeout},
		Resolve: func(e env.Environment, ref string) (env.Agent, error) {
			a, err := res.Resolve(e, ref)
			sb.add(sandboxOf(a))
			return a, err
		},
	}
	opts.Progress = newProgress(c.App.ErrWriter, isTerminal(c.App.ErrWriter))
	return opts, sb, nil
}

// artifacts is --artifacts: nil when not given, the artifacts otherwise
// (none when given empty).
func (o *caseOptions) artifacts(c *cli.Context) []string {
	if o == nil || !o.fs.isSet(c, &o.Artifacts) {
		return nil
	}
	if v := o.Artifacts.Value(); v != nil {
		return v
	}
	return []string{}
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
// artifacts, when not nil, are --artifacts given (caseOptions.artifacts).
func selectCases(c *cli.Context, envs Environments, sel oracle.Selection, artifacts []string) (*oracle.Selected, *baseline.Store, error) {
	dir, err := project(c)
	if err != nil {
		return nil, nil, err
	}
	for _, a := range sel.Agents {
		if env.ParseAgentRef(a).Is(env.ReplayScheme) {
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
	override := artifacts
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
