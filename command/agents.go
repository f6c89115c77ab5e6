package command

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"sync"

	"github.com/agent-oracle/oracle/agent/anthropic"
	"github.com/agent-oracle/oracle/agent/openai"
	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/internal/cassette"
	"github.com/agent-oracle/oracle/oracle"
	"github.com/agent-oracle/oracle/runner"
	"github.com/urfave/cli/v2"
)

// agentOptions are the flags of how agents run: the variables and the
// sandbox of exec agents, and the sampling of model agents. Like every run
// option they are no part of a case's identity.
type agentOptions struct {
	fs *flags // the verb's flags, which hold these

	Env      cli.StringSlice // --agent-env
	Sandbox  string
	Net      bool
	ReadOnly cli.StringSlice // --agent-ro

	models      bool // the verb has the model flags
	Temperature float64
	Seed        int64
	MaxTurns    int
	Retries     int
	ModelCache  string // --model-cache
}

// envFlag adds --agent-env, which passes variables to exec agents, which
// otherwise see only PATH and HOME.
func (o *agentOptions) envFlag(fs *flags) {
	o.fs = fs
	fs.Strings(&o.Env, &cli.StringSliceFlag{Name: "agent-env", Usage: "pass the variable `NAME` (or set NAME=VALUE) to exec: agents, which see only PATH and HOME otherwise (repeatable)"})
}

// sandboxFlags add the flags that choose how exec agents are contained.
func (o *agentOptions) sandboxFlags(fs *flags) {
	o.fs = fs
	fs.String(&o.Sandbox, &cli.StringFlag{Name: sandboxFlag, Value: string(runner.SandboxAuto), Usage: "contain exec: agents and the hosts of environments in TypeScript and Python with `MODE`: bwrap (bubblewrap: no /proc of the runner, no project, read-only files, no network, nothing survives), none (process group and scrubbed environment only), or auto (bwrap when it works here)"})
	fs.Bool(&o.Net, &cli.BoolFlag{Name: "agent-net", Usage: "let sandboxed exec: agents use the network (off by default), e.g. to call a model API"})
	fs.Strings(&o.ReadOnly, &cli.StringSliceFlag{Name: "agent-ro", Usage: "let sandboxed exec: agents read `PATH` (a virtualenv, a model cache); never .silo or an environment's folder (repeatable)"})
}

// modelFlags add the flags of openai:MODEL and anthropic:MODEL agents, for
// run, record and check alike.
func (o *agentOptions) modelFlags(fs *flags) {
	o.fs, o.models = fs, true
	fs.Float64(&o.Temperature, &cli.Float64Flag{Name: "model-temperature", Value: 0, Usage: "sampling temperature of openai: and anthropic: agents"})
	fs.Int64(&o.Seed, &cli.Int64Flag{Name: "model-seed", Usage: "sampling `seed` sent to openai: agents' API (not sent unless given; Anthropic's API takes none)"})
	fs.Int(&o.MaxTurns, &cli.IntFlag{Name: "model-max-turns", Value: openai.DefaultMaxTurns, Usage: "`turns` an openai: or anthropic: agent's model is given before the rollout ends as agent_error"})
	fs.String(&o.ModelCache, &cli.StringFlag{Name: "model-cache", Value: string(cassette.ModeOff), Usage: "`MODE` of openai: and anthropic: agents' cassettes in .silo/cassettes (docs/cassettes.md): record (ask the model, record each exchange), replay (answer from the cassette, never the network; a request it lacks is a change), auto (replay what is recorded, ask and record the rest) or off"})
	fs.Int(&o.Retries, &cli.IntFlag{Name: "model-retries", Value: openai.DefaultMaxRetries, Usage: "retry an openai: or anthropic: request that failed (429, 5xx, no connection) up to `N` times, waiting 1s, 2s, 4s… (or what Retry-After asks) between tries; 0 for none"})
}

// modelOptions are the model flags as read.
type modelOptions struct {
	temperature float64
	seed        *int64
	maxTurns    int
	retries     int // as modelapi.Client.MaxRetries takes it: negative for none
	// cassette is the clients' cassette; nil when --model-cache is off
	cassette *cassette.Config
}

// modelOptions checks the model flags; a value out of range is a usage
// error. A command without them (verifier test) runs no model and gets
// the defaults.
func (o *agentOptions) modelOptions(c *cli.Context) (modelOptions, error) {
	if !o.models {
		return modelOptions{maxTurns: openai.DefaultMaxTurns}, nil
	}
	m := modelOptions{temperature: o.Temperature, maxTurns: o.MaxTurns, retries: o.Retries}
	switch {
	case math.IsNaN(m.temperature) || m.temperature < 0:
		return m, usageError("--model-temperature %v: want a temperature of 0 or more, such as 0.7", m.temperature)
	case m.maxTurns < 1:
		return m, usageError("--model-max-turns %d: want a whole number of at least 1", m.maxTurns)
	case m.retries < 0:
		return m, usageError("--model-retries %d: want a whole number, 0 for none", m.retries)
	case m.retries == 0:
		m.retries = -1
	}
	mode, err := cassette.ParseMode(o.ModelCache)
	if err != nil {
		return m, usageError("--model-cache %q: want record, replay, auto or off", o.ModelCache)
	}
	if mode != cassette.ModeOff {
		project, err := filepath.Abs(projectDir(c))
		if err != nil {
			return m, err
		}
		m.cassette = &cassette.Config{Project: project, Mode: mode}
	}
	if o.fs.isSet(c, &o.Seed) {
		seed := o.Seed
		m.seed = &seed
	}
	return m, nil
}

// modelAgents make the agents of the model schemes of env.Schemes (those
// of Model true), with the model flags.
var modelAgents = map[*env.Scheme]func(m modelOptions, model string) (env.Agent, error){
	env.OpenAIScheme: func(m modelOptions, model string) (env.Agent, error) {
		return openai.New(m.openai(openai.FromEnv(model)))
	},
	env.AnthropicScheme: func(m modelOptions, model string) (env.Agent, error) {
		return anthropic.New(m.anthropic(anthropic.FromEnv(model)))
	},
}

// schemes are the runner's constructors of the model schemes' agents.
func (m modelOptions) schemes() map[string]func(string) (env.Agent, error) {
	out := make(map[string]func(string) (env.Agent, error), len(modelAgents))
	for s, newAgent := range modelAgents {
		out[s.Name] = func(model string) (env.Agent, error) { return newAgent(m, model) }
	}
	return out
}

// openai applies the options to cfg.
func (m modelOptions) openai(cfg openai.Config) openai.Config {
	cfg.Temperature, cfg.Seed, cfg.MaxTurns, cfg.API.MaxRetries, cfg.API.Cassette = m.temperature, m.seed, m.maxTurns, m.retries, m.cassette
	return cfg
}

// anthropic applies the options to cfg; Anthropic's API takes no seed.
func (m modelOptions) anthropic(cfg anthropic.Config) anthropic.Config {
	cfg.Temperature, cfg.MaxTurns, cfg.API.MaxRetries, cfg.API.Cassette = m.temperature, m.maxTurns, m.retries, m.cassette
	return cfg
}

// resolver resolves agent references with the command's exec options. The
// first exec agent of an auto sandbox without bubblewrap warns, once.
func (o *agentOptions) resolver(c *cli.Context) (agentResolver, error) {
	holdSecrets(o.Env.Value())
	mode, err := runner.ParseSandboxMode(o.Sandbox)
	if err != nil {
		return agentResolver{}, usageError("--sandbox %q is not auto, bwrap or none", o.Sandbox)
	}
	if mode == runner.SandboxBwrap {
		if _, err := runner.BwrapStatus(); err != nil {
			return agentResolver{}, fmt.Errorf("--sandbox bwrap: %v; %s or use --sandbox none", err, runner.BwrapInstallHint)
		}
	}
	var loose []string // sandbox flags that only a sandbox honours
	for _, field := range []any{&o.ReadOnly, &o.Net} {
		if flag := o.fs.given(c, field); flag != "" {
			loose = append(loose, flag)
		}
	}
	if mode == runner.SandboxNone && len(loose) > 0 {
		return agentResolver{}, usageError("%s with --sandbox none: only a sandbox honours it (none shows the agent everything and lets it reach the network); drop it or use --sandbox bwrap", strings.Join(loose, " and "))
	}
	noEffect := ""
	if len(loose) > 0 {
		noEffect = "; " + strings.Join(loose, " and ") + " have no effect without it"
	}
	project, err := filepath.Abs(projectDir(c))
	if err != nil {
		return agentResolver{}, err
	}
	models, err := o.modelOptions(c)
	if err != nil {
		return agentResolver{}, err
	}
	var once sync.Once
	return agentResolver{runner.Resolver{
		Schemes: models.schemes(),
		Exec: runner.ExecConfig{Env: o.Env.Value(), Sandbox: runner.Sandbox{
			Mode: mode, Net: o.Net, ReadOnly: o.ReadOnly.Value(), Project: project,
		}},
		Warn:    func(msg string) { once.Do(func() { fmt.Fprintln(c.App.ErrWriter, "warning: "+msg+noEffect) }) },
		Project: project,
	}}, nil
}

// importReplays turns record's --agent replay:PATH values into replay
// cases: each trace is copied into the project's .silo/traces, and the
// selection is narrowed to those cases. --env and --task, when they name
// one environment and one task, name them for a trace without run_start.
func importReplays(c *cli.Context, envs Environments, sel oracle.Selection, agentEnv []string) (oracle.Selection, error) {
	var paths, agents []string
	for _, a := range sel.Agents {
		if path, ok := env.CutScheme(a, env.ReplayScheme); ok {
			paths = append(paths, path)
		} else {
			agents = append(agents, a)
		}
	}
	if len(paths) == 0 {
		return sel, nil
	}
	holdSecrets(agentEnv)
	cat, err := loadCatalog(envs)
	if err != nil {
		return sel, err
	}
	single := func(list []string) string {
		if len(list) == 1 && !strings.ContainsAny(list[0], "*?[") {
			return list[0]
		}
		return ""
	}
	envName, task := single(sel.Envs), single(sel.Tasks)
	sel.Envs, sel.Tasks = nil, nil
	for _, path := range paths {
		if path == "" {
			return sel, usageError("--agent replay: names no trace; give one, e.g. --agent replay:.silo/runs/<runId>/trace.jsonl")
		}
		k, stored, err := oracle.ImportTrace(projectDir(c), cat.envs, path, envName, task)
		if err != nil {
			return sel, targetFix(err)
		}
		fmt.Fprintf(c.App.ErrWriter, "replay case %s: trace in %s\n", k, stored)
		agents = append(agents, k.Agent)
		sel.Envs = append(sel.Envs, k.Env)
		sel.Tasks = append(sel.Tasks, k.Task)
	}
	sel.Agents = agents
	return sel, nil
}

// targetFlags are the flags that name what a trace may not.
var targetFlags = map[runner.TargetField]string{runner.TargetEnv: "--env", runner.TargetTask: "--task"}

// targetFix adds to an error about the environment or task of a trace the
// flag that mends it.
func targetFix(err error) error {
	var te *runner.TargetError
	switch {
	case !errors.As(err, &te):
		return err
	case te.Recorded == "":
		return fmt.Errorf("%w; name it with %s", err, targetFlags[te.Field])
	}
	return fmt.Errorf("%w; give %s %s or the trace of %s %s", err, targetFlags[te.Field], te.Recorded, te.Field, te.Given)
}
