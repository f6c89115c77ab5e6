package command

import (
	"fmt"

	"github.com/agent-oracle/oracle/command/internal/scaffold"
	"github.com/urfave/cli/v2"
)

func toolCommand() *cli.Command {
	return &cli.Command{
		Name:        "tool",
		Usage:       "scaffold tools",
		Subcommands: []*cli.Command{toolAddCommand()},
	}
}

// toolAddOptions are tool add's flags.
type toolAddOptions struct {
	flags
	Env, Description string
}

func toolAddCommand() *cli.Command {
	o := &toolAddOptions{}
	o.String(&o.Env, &cli.StringFlag{Name: envFlag, Aliases: []string{"e"}, Usage: "environment `name`"})
	o.String(&o.Description, &cli.StringFlag{Name: "description", Aliases: []string{"d"}, Usage: "what the tool does, for the agent"})
	return &cli.Command{
		Name:      "add",
		Usage:     "add a tool to an environment's Go package and register it",
		ArgsUsage: "NAME",
		Description: "Writes tool_NAME.go in the folder the environment's manifest names: a tool whose input is an empty\n" +
			"object and whose every call is a not_implemented error until you write it. Then regenerates\n" +
			"registry.go so the tool is registered. Refuses to overwrite a file.",
		Flags:  o.list,
		Action: func(c *cli.Context) error { return o.run(c) },
	}
}

// run writes the tool and registers it.
func (o *toolAddOptions) run(c *cli.Context) error {
	cmd := program(c, "tool add")
	args, err := positional(c, cmd)
	if err != nil {
		return err
	}
	if err := o.required(cmd, &o.Env); err != nil {
		return err
	}
	if len(args) != 1 {
		return usageError("tool add takes one tool name, e.g. %s tool add list_invoices --env %s", c.App.Name, o.Env)
	}
	name := args[0]
	if err := scaffold.CheckToolName(name); err != nil {
		return usageError("%v", err)
	}
	project := projectDir(c)
	_, dir, err := envPackage(project, o.Env, c.App.Name)
	if err != nil {
		return err
	}
	path, regPath, err := addToPackage(dir, func(pkg string) (scaffold.File, error) {
		return scaffold.Tool(pkg, name, o.Description)
	}, scaffold.ToolIdent(name))
	if err != nil {
		return err
	}
	w := c.App.Writer
	file := shown(project, path)
	fmt.Fprintf(w, "Created %s\n", file)
	fmt.Fprintf(w, "Registered %s in %s\n", scaffold.ToolIdent(name), shown(project, regPath))
	fmt.Fprintf(w, "Next: write its input schema and Run in %s, then rebuild.\n", file)
	return nil
}
