package runner

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"sync"
)

// SandboxMode says how exec agents are contained.
type SandboxMode string

// The sandbox modes. Auto is bwrap when bubblewrap is installed and works on
// this machine, none otherwise.
const (
	SandboxAuto  SandboxMode = "auto"
	SandboxBwrap SandboxMode = "bwrap"
	SandboxNone  SandboxMode = "none"
)

// ParseSandboxMode reads a sandbox mode: auto, bwrap or none.
func ParseSandboxMode(s string) (SandboxMode, error) {
	switch m := SandboxMode(s); m {
	case SandboxAuto, SandboxBwrap, SandboxNone:
		return m, nil
	}
	return "", fmt.Errorf("sandbox mode %q is not auto, bwrap or none", s)
}

// Sandbox configures how exec agents are contained; see docs/protocol.md.
type Sandbox struct {
	// Mode is auto (the default when empty), bwrap or none.
	Mode SandboxMode
	// Net lets the agent use the host's network; without it the agent has
	// a network namespace of its own with nothing but a loopback.
	Net bool
	// ReadOnly lists extra host paths the agent sees read-only: a
	// virtualenv, a model cache. Inside the project only paths outside
	// .silo and the environments' folders are allowed.
	ReadOnly []string
	// Declared says the command is a manifest's declared agent: a file it
	// names may lie in an environment's folder (a solver beside its
	// environment), bound alone, read-only; the rest of the folder stays
	// hidden.
	Declared bool
	// Project is the folder hidden from the agent (the project root, the
	// folder that holds .silo); empty hides no project.
	Project string
}

// NotContained is what an agent run without the sandbox can still reach,
// for the warning of auto and for the docs.
const NotContained = "the runner's /proc (and its environment), the project folder, the network, and processes that leave the agent's process group"

// BwrapInstallHint says how to get bubblewrap.
const BwrapInstallHint = "install bubblewrap (apt-get install bubblewrap, dnf install bubblewrap)"

var bwrapProbe struct {
	once sync.Once
	path string
	err  error
	// asAgentUser: the runner is root and bwrap runs agents as the agent
	// user, through setpriv (its path); rootNote says why not, when the
	// runner is root and they run as root
	asAgentUser bool
	setpriv     string
	rootNote    string
}

// BwrapStatus returns the path of a bwrap that works on this machine, or
// why there is none. It runs bwrap once per process, with the sandbox's
// own options (as the unprivileged user agents run as, when the runner is
// root), and remembers the answer.
func BwrapStatus() (string, error) {
	bwrapProbe.once.Do(func() {
		path, err := exec.LookPath("bwrap")
		if err != nil {
			bwrapProbe.err = errors.New("bwrap is not installed")
			return
		}
		probe := func(args []string) error {
			cmd := exec.Command(path, args...)
			cmd.Env = []string{}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Run(); err != nil {
				return fmt.Errorf("%v: %s", err, oneLine(stderr.String(), 200))
			}
			return nil
		}
		if runsAsRoot() {
			setpriv, err := exec.LookPath("setpriv")
			if err == nil {
				bwrapProbe.setpriv = setpriv
				plan := &bwrapPlan{hide: []string{"/tmp"}, writable: []string{"/tmp"}}
				err = probe(append(plan.args("/tmp", "/tmp", 2, true), "/bin/sh", "-c", "test $(id -u) = "+strconv.Itoa(agentUID)))
			}
			if err == nil {
				bwrapProbe.path, bwrapProbe.asAgentUser = path, true
				return
			}
			bwrapProbe.rootNote = fmt.Sprintf("sandboxed exec agents run as root, able to read every file root can: the sandbox cannot make them the unprivileged user nobody here (%v); install setpriv (util-linux) or run oracle as another user", err)
		}
		if err := probe(append(bwrapBase(false), "--", "/bin/true")); err != nil {
			bwrapProbe.err = fmt.Errorf("bwrap does not work here (%v); user namespaces may be disabled", err)
			return
		}
		bwrapProbe.path = path
	})
	return bwrapProbe.path, bwrapProbe.err
}

// dropsToAgentUser reports whether sandboxed agents run as the agent user
// (the runner is root, see bwrapAsUser).
func dropsToAgentUser() bool {
	_, err := BwrapStatus()
	return err == nil && bwrapProbe.asAgentUser
}

// choose returns the mode an agent runs in, bwrap or none, and for auto
// without a working bwrap, the warning to give.
func (s Sandbox) choose() (mode SandboxMode, warning string, err error) {
	switch s.Mode {
	case SandboxNone:
		return SandboxNone, "", nil
	case SandboxBwrap:
		if _, err := BwrapStatus(); err != nil {
			return "", "", fmt.Errorf("sandbox mode bwrap: %v; %s", err, BwrapInstallHint)
		}
		return SandboxBwrap, bwrapProbe.rootNote, nil
	case SandboxAuto, "":
		if _, err := BwrapStatus(); err != nil {
			return SandboxNone, fmt.Sprintf("exec agents run without a sandbox (%v): they can reach %s; %s", err, NotContained, BwrapInstallHint), nil
		}
		return SandboxBwrap, bwrapProbe.rootNote, nil
	}
	return "", "", fmt.Errorf("sandbox mode %q is not auto, bwrap or none", s.Mode)
}
