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

// agentEnvFlag passes variables to exec agents, which otherwise see only
// PATH and HOME.
func agentEnvFlag() cli.Flag {
	return &cli.StringSliceFlag{Name: "agent-env", Usage: "pass the variable `NAME` (or set NAME=VALUE) to exec: agents, which see only PATH and HOME otherwise (repeatable)"}
}

// sandboxFlags choose how exec agents are contained.
func sandboxFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "sandbox", Value: string(runner.SandboxAuto), Usage: "contain exec: agents with `MODE`: bwrap (bubblewrap: no /proc of the runner, no project, read-only files, no network, nothing survives), none (process group and scrubbed environment only), or auto (bwrap when it works here)"},
		&cli.BoolFlag{Name: "agent-net", Usage: "let sandboxed exec: agents use the network (off by default), e.g. to call a model API"},
		&cli.StringSliceFlag{Name: "agent-ro", Usage: "let sandboxed exec: agents read `PATH` (a virtualenv, a model cache); never .silo or an environment's folder (repeatable)"},
	}
}

// modelFlags configure openai:MODEL and anthropic:MODEL agents, for run,
// record and check alike; like every run option they are no part of a
// case's identity.
func modelFlags() []cli.Flag {
	return []cli.Flag{
		&cli.Float64Flag{Name: "model-temperature", Value: 0, Usage: "sampling temperature of openai: and anthropic: agents"},
		&cli.Int64Flag{Name: "model-seed", Usage: "sampling `seed` sent to openai: agents' API (not sent unless given; Anthropic's API takes none)"},
		&cli.IntFlag{Name: "model-max-turns", Value: openai.DefaultMaxTurns, Usage: "`turns` an openai: or anthropic: agent's model is given before the rollout ends as agent_error"},
		&cli.StringFlag{Name: "model-cache", Value: string(cassette.ModeOff), Usage: "`MODE` of openai: and anthropic: agents' cassettes in .silo/cassettes (docs/cassettes.md): record (ask the model, record each exchange), replay (answer from the cassette, never the network; a request it lacks is a change), auto (replay what is recorded, ask and record the rest) or off"},
		&cli.IntFlag{Name: "model-retries", Value: openai.DefaultMaxRetries, Usage: "retry an openai: or anthropic: request that failed (429, 5xx, no connection) up to `N` times, waiting 1s, 2s, 4s… (or what Retry-After asks) between tries; 0 for none"},
	}
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

// readModelOptions reads the model flags; a value out of range is a
// usage error. A command without them (verifier test) runs no model and
// gets the defaults.
func readModelOptions(c *cli.Context) (modelOptions, error) {
	if c.Value("model-max-turns") == nil {
		return modelOptions{maxTurns: openai.DefaultMaxTurns}, nil
	}
	m := modelOptions{temperature: c.Float64("model-temperature"), maxTurns: c.Int("model-max-turns"), retries: c.Int("model-retries")}
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
	mode, err := cassette.ParseMode(c.String("model-cache"))
	if err != nil {
		return m, usageError("--model-cache %q: want record, replay, auto or off", c.String("model-cache"))
	}
	if mode != cassette.ModeOff {
		project, err := filepath.Abs(projectDir(c))
		if err != nil {
			return m, err
		}
		m.cassette = &cassette.Config{Project: project, Mode: mode}
	}
	if c.IsSet("model-seed") {
		seed := c.Int64("model-seed")
		m.seed = &seed
	}
	return m, nil
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
func resolver(c *cli.Context) (agentResolver, error) {
	holdSecrets(c)
	mode, err := runner.ParseSandboxMode(c.String("sandbox"))
	if err != nil {
		return agentResolver{}, usageError("--sandbox %q is not auto, bwrap or none", c.String("sandbox"))
	}
	if mode == runner.SandboxBwrap {
		if _, err := runner.BwrapStatus(); err != nil {
			return agentResolver{}, fmt.Errorf("--sandbox bwrap: %v; %s or use --sandbox none", err, runner.BwrapInstallHint)
		}
	}
	var loose []string // sandbox flags that only a sandbox honours
	for _, flag := range []string{"agent-ro", "agent-net"} {
		if c.IsSet(flag) {
			loose = append(loose, "--"+flag)
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
	models, err := readModelOptions(c)
	if err != nil {
		return agentResolver{}, err
	}
	var once sync.Once
	return agentResolver{runner.Resolver{
		Schemes: map[string]func(string) (env.Agent, error){
			"openai": func(model string) (env.Agent, error) {
				return openai.New(models.openai(openai.FromEnv(model)))
			},
			"anthropic": func(model string) (env.Agent, error) {
				return anthropic.New(models.anthropic(anthropic.FromEnv(model)))
			},
		},
		Exec: runner.ExecConfig{Env: c.StringSlice("agent-env"), Sandbox: runner.Sandbox{
			Mode: mode, Net: c.Bool("agent-net"), ReadOnly: c.StringSlice("agent-ro"), Project: project,
		}},
		Warn:    func(msg string) { once.Do(func() { fmt.Fprintln(c.App.ErrWriter, "warning: "+msg+noEffect) }) },
		Project: project,
	}}, nil
}

// importReplays turns record's --agent replay:PATH values into replay
// cases: each trace is copied into the project's .silo/traces, and the
// selection is narrowed to those cases. --env and --task, when they name
// one environment and one task, name them for a trace without run_start.
func importReplays(c *cli.Context, envs Environments, sel oracle.Selection) (oracle.Selection, error) {
	var paths, agents []string
	for _, a := range sel.Agents {
		if path, ok := strings.CutPrefix(a, "replay:"); ok {
			paths = append(paths, path)
		} else {
			agents = append(agents, a)
		}
	}
	if len(paths) == 0 {
		return sel, nil
	}
	holdSecrets(c)
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
