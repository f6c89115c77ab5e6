package command

import (
	"fmt"
	"github.com/agent-oracle/oracle/internal/safetext"
	"strings"

	"github.com/agent-oracle/oracle/env"
	"github.com/urfave/cli/v2"
)

// listOptions are list's flags.
type listOptions struct {
	flags
	Env, Format string
	JSON, Tools bool
}

func listCommand(envs Environments) *cli.Command {
	o := &listOptions{}
	o.String(&o.Env, &cli.StringFlag{Name: envFlag, Aliases: []string{"e"}, Usage: "only this environment"})
	o.Bool(&o.JSON, &cli.BoolFlag{Name: "json", Usage: "print as JSON"})
	o.Bool(&o.Tools, &cli.BoolFlag{Name: "tools", Usage: "print the tools of --env with their input schemas"})
	o.String(&o.Format, &cli.StringFlag{Name: "format", Usage: "with --tools: json (the versioned object), openai (the chat API's tools array) or mcp (the tools array of an MCP tools/list result)"})
	return &cli.Command{
		Name:   "list",
		Usage:  "list environments, their tasks, tools, verifiers and agents",
		Flags:  o.list,
		Action: func(c *cli.Context) error { return o.run(c, envs) },
	}
}

// run lists the environments.
func (o *listOptions) run(c *cli.Context, envs Environments) error {
	cat, err := loadCatalog(envs)
	if err != nil {
		return err
	}
	if o.Tools || o.isSet(c, &o.Format) {
		return o.listTools(c, cat)
	}
	list, err := cat.selected(o.Env)
	if err != nil {
		return err
	}
	type envJSON struct {
		Name        string             `json:"name"`
		Description string             `json:"description"`
		Tasks       []env.Task         `json:"tasks"`
		Tools       []string           `json:"tools"`
		Verifiers   []env.VerifierInfo `json:"verifiers"`
		Agents      []string           `json:"agents"`
		Regression  []string           `json:"regressionAgents"`
	}
	out := []envJSON{}
	for _, e := range list {
		tasks, err := e.Tasks()
		if err != nil {
			return err
		}
		tools := []string{}
		for _, t := range e.Tools() {
			tools = append(tools, t.Name)
		}
		out = append(out, envJSON{e.Name(), e.Description(), tasks, tools, e.Verifiers(), env.AgentNames(e), e.RegressionAgents()})
	}
	w := c.App.Writer
	if o.JSON {
		return writeEnvironments(w, out)
	}
	s := newStyle(c, w)
	for i, e := range out {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if e.Description == "" {
			fmt.Fprintln(w, s.Bold(safetext.LineStart(e.Name)))
		} else {
			fmt.Fprintf(w, "%s  %s\n", s.Bold(safetext.LineStart(e.Name)), safe(e.Description))
		}
		switch {
		case len(e.Agents) == 0:
			fmt.Fprintf(w, "  agents: none %s\n", s.Dim("(record and check have no case for it)"))
		case len(e.Regression) == 0:
			fmt.Fprintf(w, "  agents: %s %s\n", safe(strings.Join(e.Agents, ", ")), s.Dim("(none for regression: record and check have no case for it)"))
		default:
			fmt.Fprintf(w, "  agents: %s (regression: %s)\n", safe(strings.Join(e.Agents, ", ")), safe(strings.Join(e.Regression, ", ")))
		}
		fmt.Fprintf(w, "  tools (%d): %s\n", len(e.Tools), safe(strings.Join(e.Tools, ", ")))
		fmt.Fprintf(w, "  tasks (%d):\n", len(e.Tasks))
		for _, t := range e.Tasks {
			difficulty := ""
			if t.Difficulty != "" {
				difficulty = "  " + s.Dim("("+safe(t.Difficulty)+")")
			}
			fmt.Fprintf(w, "    %-10s %-8s %s%s\n", safetext.LineStart(t.ID), safe(t.VerifierID), safe(t.Title), difficulty)
		}
	}
	return nil
}
