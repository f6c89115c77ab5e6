package command

import "github.com/urfave/cli/v2"

// Version is oracle's version: what oracle --version prints and what
// oracle init records as a manifest's templateVersion. A release build
// stamps it (make dist: -ldflags "-X github.com/agent-oracle/oracle/command.Version=V");
// the value here is the source's own.
var Version = "0.1.0"

// versionOptions are version's flags.
type versionOptions struct {
	flags
	JSON bool
}

// versionCommand is "version": what --version prints, as a command, and
// with --json as an object.
func versionCommand() *cli.Command {
	o := &versionOptions{}
	o.Bool(&o.JSON, &cli.BoolFlag{Name: "json", Usage: "print as JSON"})
	return &cli.Command{
		Name:   "version",
		Usage:  "print the program's name and version, as --version does",
		Flags:  o.list,
		Action: func(c *cli.Context) error { return o.run(c) },
	}
}

// run prints the version.
func (o *versionOptions) run(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageError("version takes no arguments, got %q", c.Args().First())
	}
	if o.JSON {
		return writeJSON(c.App.Writer, struct {
			FormatVersion int    `json:"formatVersion"`
			Name          string `json:"name"`
			Version       string `json:"version"`
		}{FormatVersion, c.App.Name, c.App.Version})
	}
	cli.ShowVersion(c)
	return nil
}
