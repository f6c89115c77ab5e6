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

func toolAddCommand() *cli.Command {
	return &cli.Command{
		Name:      "add",
		Usage:     "add a tool to an environment's Go package and register it",
		ArgsUsage: "NAME",
		Description: "Writes tool_NAME.go in the folder the environment's manifest names: a tool whose input is an empty\n" +
			"object and whose every call is a not_implemented error until you write it. Then regenerates\n" +
			"registry.go so the tool is registered. Refuses to overwrite a file.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "env", Aliases: []string{"e"}, Usage: "environment `name`"},
			&cli.StringFlag{Name: "description", Aliases: []string{"d"}, Usage: "what the tool does, for the agent"},
		},
		Action: func(c *cli.Context) error {
			args, err := positional(c, program(c, "tool add"), "env")
			if err != nil {
				return err
			}
			if len(args) != 1 {
				return usageError("tool add takes one tool name, e.g. %s tool add list_invoices --env %s", c.App.Name, c.String("env"))
			}
			name := args[0]
			if err := scaffold.CheckToolName(name); err != nil {
				return usageError("%v", err)
			}
			project := projectDir(c)
			_, dir, err := envPackage(project, c.String("env"), c.App.Name)
			if err != nil {
				return err
			}
			path, regPath, err := addToPackage(dir, func(pkg string) (scaffold.File, error) {
				return scaffold.Tool(pkg, name, c.String("description"))
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
		},
	}
}
