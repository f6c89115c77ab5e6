package command

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/oracle"
	"github.com/urfave/cli/v2"
)

// catalog is the environments of a binary, loaded once per command.
type catalog struct {
	envs []env.Environment
}

func loadCatalog(envs Environments) (*catalog, error) {
	list, err := envs()
	if err != nil {
		return nil, fmt.Errorf("load environments: %w", err)
	}
	return &catalog{envs: list}, nil
}

func (c *catalog) names() []string {
	names := make([]string, len(c.envs))
	for i, e := range c.envs {
		names[i] = e.Name()
	}
	return names
}

// env returns the environment called name.
func (c *catalog) env(name string) (env.Environment, error) {
	return env.FindEnv(c.envs, name)
}

// selected returns the environment called name, or every environment when
// name is empty.
func (c *catalog) selected(name string) ([]env.Environment, error) {
	if name == "" {
		return c.envs, nil
	}
	e, err := c.env(name)
	if err != nil {
		return nil, err
	}
	return []env.Environment{e}, nil
}

// task finds a task by id in the named environment, or, when envName is
// empty, in whichever single environment has it.
func (c *catalog) task(envName, id string) (env.Environment, env.Task, error) {
	if envName != "" {
		e, err := c.env(envName)
		if err != nil {
			return nil, env.Task{}, err
		}
		t, err := env.FindTask(e, id)
		return e, t, err
	}
	var found []env.Environment
	var task env.Task
	var known []string // every task's id, for the error of none
	for _, e := range c.envs {
		t, err := env.FindTask(e, id)
		if err == nil {
			found = append(found, e)
			task = t
		} else if nf, ok := err.(*env.Error); ok {
			known = append(known, nf.Known...)
		}
	}
	switch len(found) {
	case 1:
		return found[0], task, nil
	case 0:
		slices.Sort(known)
		return nil, env.Task{}, &env.Error{Code: env.CodeTaskNotFound, Known: slices.Compact(known),
			Message: fmt.Sprintf("no task %s in %s", id, strings.Join(c.names(), ", "))}
	}
	names := make([]string, len(found))
	for i, e := range found {
		names[i] = e.Name()
	}
	return nil, env.Task{}, &env.Error{Code: "ambiguous_task", Known: names,
		Message: fmt.Sprintf("%s is a task of %s; name one with --env", id, strings.Join(names, " and "))}
}

// defaultAgent is the agent a command uses when none is named: the
// environment's first regression agent.
func defaultAgent(e env.Environment) (string, error) {
	if a := e.RegressionAgents(); len(a) > 0 {
		return a[0], nil
	}
	if a := e.Agents(); len(a) > 0 {
		return a[0], nil
	}
	return "", &env.Error{Code: env.CodeAgentNotFound,
		Message: fmt.Sprintf("%s has no built-in agent; name one with --agent exec:COMMAND or replay:PATH", e.Name())}
}

// projectCatalog returns the project folder and the catalog of a command
// that names one environment with --env, which the project must know.
func projectCatalog(c *cli.Context, envs Environments, name string) (string, *catalog, error) {
	folder, err := project(c)
	if err != nil {
		return "", nil, err
	}
	cat, err := loadCatalog(envs)
	if err != nil {
		return "", nil, err
	}
	if name != "" {
		if err := oracle.CheckProjectEnvs(folder, cat.envs, []string{name}); err != nil {
			return "", nil, err
		}
	}
	return folder, cat, nil
}
