package host

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/internal/safeio"
)

// Options tune the hosts of Load.
type Options struct {
	// Hosts and WorldsPerHost: see Config; 0 takes the defaults.
	Hosts, WorldsPerHost int
	// Timeout: see Config.
	Timeout time.Duration
	// Sandbox is how the hosts are contained (Config.Sandbox); tsx's
	// packages are added to what they see read-only.
	Sandbox Sandbox
}

// Load is the environment whose manifest is m in the project at
// projectDir, served by the Node host for a .ts, .mts, .js or .mjs
// entrypoint, the Python host for .py; like New, it starts its host when
// first used (or at Start). The module, relative to the environment's
// folder, must be a regular file, reached through no symlink under the
// project: one that is not there is an error here. A runtime that is
// missing (node, tsx, python3) is the error of the start. A TypeScript
// module needs tsx (see findTSX).
func Load(projectDir string, m env.Manifest, opts Options) (*Environment, error) {
	project, err := filepath.Abs(projectDir)
	if err != nil {
		return nil, err
	}
	folder := m.Dir(project)
	entry := m.EntrypointFile(project)
	rel := filepath.ToSlash(env.ManifestPath(m.Name))
	if err := safeio.CheckChain(project, entry); err != nil {
		return nil, fmt.Errorf("environment %s: entrypoint: %w", m.Name, err)
	}
	if err := checkModule(entry); err != nil {
		return nil, fmt.Errorf("environment %s: entrypoint %s: %v; fix the entrypoint of %s", m.Name, m.Entrypoint, err, rel)
	}
	cfg := Config{Name: m.Name, Dir: project, Folder: folder, Agents: m.DeclaredAgents(project),
		Hosts: opts.Hosts, WorldsPerHost: opts.WorldsPerHost, Timeout: opts.Timeout, Sandbox: opts.Sandbox}
	tsx := ""
	switch env.EntrypointLang(m.Entrypoint) {
	case env.LangNode:
		if needsTSX(entry) {
			tsx, err = findTSX(folder, project)
		}
		cfg.What = "the Node host of " + m.Name
		if err == nil {
			cfg.Command, err = nodeCommand(m.Name, entry, tsx, project)
		}
		if tsx != "" {
			cfg.Sandbox.ReadOnly = append(cfg.Sandbox.ReadOnly, packagesOf(tsx))
		}
		if cache := hostCache(); cache != "" && os.MkdirAll(cache, 0o700) == nil {
			cfg.Sandbox.Writable = append(cfg.Sandbox.Writable, cache)
		}
	case env.LangPython:
		cfg.What = "the Python host of " + m.Name
		cfg.Command, err = pythonCommand(m.Name, entry)
	default:
		return nil, fmt.Errorf("environment %s: entrypoint %s is not a module a host loads (.ts, .mts, .js, .mjs or .py)", m.Name, m.Entrypoint)
	}
	e, perr := New(cfg)
	if perr != nil {
		return nil, perr
	}
	e.lang = env.EntrypointLang(m.Entrypoint)
	if e.lang == env.LangNode {
		e.tsx = tsx
	}
	if err != nil {
		// what the host needs is missing: the start fails, saying so
		e.startOnce.Do(func() { e.startErr = fmt.Errorf("environment %s: %w", m.Name, err) })
	}
	return e, nil
}
