package command

import (
	"errors"
	"path"
	"sort"
	"sync"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/env/host"
	"github.com/urfave/cli/v2"
)

// projectEnvs is a binary's environments as one project sees them, loaded
// once per command:
//
//   - an environment folder of the project whose manifest names a module
//     (./index.ts, ./env.py) is served by the host for its language, and
//     wins over a built-in environment of the same name;
//   - a manifest that names a Go package folder names the built-in
//     environment of its name; its "agents" add to its regression agents;
//   - in a project whose .silo/environments holds environments that
//     hosts serve, the binary's environments are there only where the
//     project names them, so a project of the original runner checks its
//     own environments and nothing else; a project without any sees them
//     all (the demo of a fresh clone, a project of Go environments).
type projectEnvs struct {
	builtin Environments
	dir     func() string
	// patterns are the command's --env values: the environments of hosts
	// they select start at once, to report a failure before anything
	// runs; the others start only if used
	patterns func() []string

	once  sync.Once
	envs  []env.Environment
	err   error
	hosts []*host.Environment
}

// load returns the environments of the project, loading them the first
// time.
func (p *projectEnvs) load() ([]env.Environment, error) {
	p.once.Do(func() { p.envs, p.err = p.loadAll() })
	return p.envs, p.err
}

// close stops the hosts the command started.
func (p *projectEnvs) close() {
	var wg sync.WaitGroup
	for _, h := range p.hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.Close()
		}()
	}
	wg.Wait()
	host.Shutdown()
}

func (p *projectEnvs) loadAll() ([]env.Environment, error) {
	builtin, err := p.builtin()
	if err != nil {
		return nil, err
	}
	project := p.dir()
	names := env.ManifestNames(project)
	if len(names) == 0 {
		return builtin, nil
	}
	byName := map[string]env.Environment{}
	for _, e := range builtin {
		byName[e.Name()] = e
	}
	var (
		out     []env.Environment
		modules []env.Manifest
		named   = map[string]env.Environment{}
	)
	for _, name := range names {
		m, err := env.LoadManifest(project, name)
		if err != nil {
			if _, ok := byName[name]; ok {
				named[name] = byName[name] // the manifest's trouble is reported where it is read
				continue
			}
			return nil, err
		}
		if m.Module() {
			modules = append(modules, m)
			continue
		}
		e, ok := byName[name]
		if !ok {
			continue // oracle.CheckProjectEnvs says the binary lacks it
		}
		if e, err = env.WithAgents(e, m.DeclaredAgents(project)); err != nil {
			return nil, err
		}
		named[name] = e
	}
	for _, e := range builtin {
		if n, ok := named[e.Name()]; ok {
			out = append(out, n)
		} else if len(modules) == 0 {
			out = append(out, e)
		}
	}
	if len(modules) == 0 {
		return out, nil
	}
	var patterns []string
	if p.patterns != nil {
		patterns = p.patterns()
	}
	hosts, err := loadHosts(project, modules, patterns)
	p.hosts = hosts
	if err != nil {
		return nil, err
	}
	for _, h := range hosts {
		out = append(out, h)
	}
	return out, nil
}

// loadHosts prepares the environments of hosts, and starts those the
// patterns select, at once.
func loadHosts(project string, modules []env.Manifest, patterns []string) ([]*host.Environment, error) {
	sort.Slice(modules, func(i, j int) bool { return modules[i].Name < modules[j].Name })
	var (
		hosts []*host.Environment
		errs  []error
	)
	for _, m := range modules {
		h, err := host.LoadLater(project, m, host.Options{})
		if err != nil {
			errs = append(errs, err)
			continue
		}
		hosts = append(hosts, h)
	}
	started := make([]error, len(hosts))
	var wg sync.WaitGroup
	for i, h := range hosts {
		if !selects(patterns, h.Name()) {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			started[i] = h.Start()
		}()
	}
	wg.Wait()
	return hosts, errors.Join(append(errs, started...)...)
}

// selects reports whether the --env patterns select the environment
// called name (no pattern selects all).
func selects(patterns []string, name string) bool {
	if len(patterns) == 0 {
		return true
	}
	for _, p := range patterns {
		if ok, _ := path.Match(p, name); ok || p == name {
			return true
		}
	}
	return false
}

// envPatterns reads --env, whichever command gave it.
func envPatterns(c *cli.Context) []string {
	for _, ctx := range c.Lineage() {
		if !ctx.IsSet(envFlag) {
			continue
		}
		switch ctx.Value(envFlag).(type) {
		case cli.StringSlice:
			return ctx.StringSlice(envFlag)
		default:
			return []string{ctx.String(envFlag)}
		}
	}
	return nil
}
