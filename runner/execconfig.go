package runner

import (
	"os"
	"strings"
	"time"
)

// Defaults of ExecConfig.
const (
	// DefaultExecGrace is below DefaultGrace, so that a stopped agent's
	// process group is killed and its stderr traced before the runner
	// abandons the agent.
	DefaultExecGrace      = time.Second
	DefaultMaxLineBytes   = 1 << 20
	DefaultMaxStderrBytes = 64 << 10
)

// ExecConfig configures an external agent: a process speaking the JSON
// Lines protocol of docs/protocol.md on its stdin and stdout.
type ExecConfig struct {
	// Command is run with /bin/sh -c, in a process group of its own.
	Command string
	// Dir is the agent's working folder. Empty means a fresh temporary
	// folder for each rollout, removed afterwards; a folder given here is
	// used as it is and kept. A sandboxed agent of a runner that is root
	// runs as the user nobody: a folder given must be writable by it.
	Dir string
	// Env lists what the agent's environment holds besides PATH and HOME:
	// NAME passes the runner's variable of that name (when it is set),
	// NAME=VALUE sets one. Nothing else of the runner's environment is
	// passed on, so secrets reach an agent only when named.
	Env []string
	// Grace is how long an agent that was sent stop, or that sent its
	// output, has to exit before its process group is killed; 0 means
	// DefaultExecGrace.
	Grace time.Duration
	// MaxLineBytes bounds one line the agent writes on stdout; a longer
	// line is an agent error. 0 means DefaultMaxLineBytes.
	MaxLineBytes int
	// MaxStderrBytes is how much of the end of the agent's stderr is kept
	// for the trace; 0 means DefaultMaxStderrBytes.
	MaxStderrBytes int
	// Sandbox contains the agent; its zero value is auto: bubblewrap when
	// it works here, today's process group and scrubbed environment
	// otherwise.
	Sandbox Sandbox
}

func (c ExecConfig) withDefaults() ExecConfig {
	if c.Grace <= 0 {
		c.Grace = DefaultExecGrace
	}
	if c.MaxLineBytes <= 0 {
		c.MaxLineBytes = DefaultMaxLineBytes
	}
	if c.MaxStderrBytes <= 0 {
		c.MaxStderrBytes = DefaultMaxStderrBytes
	}
	return c
}

// environ is the agent's environment: PATH and HOME, then c.Env. A home
// given replaces the runner's.
func (c ExecConfig) environ(home string) []string {
	out := []string{}
	for _, name := range append([]string{"PATH", "HOME"}, c.Env...) {
		if name == "HOME" && home != "" {
			out = append(out, "HOME="+home)
			continue
		}
		if strings.Contains(name, "=") {
			out = append(out, name)
			continue
		}
		if v, ok := os.LookupEnv(name); ok {
			out = append(out, name+"="+v)
		}
	}
	return out
}
