package command

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/agent-oracle/oracle/env"
	"github.com/urfave/cli/v2"
)

// Exit codes.
const (
	ExitOK      = 0
	ExitChanged = 1
	ExitTrouble = 2
)

// Environments returns the environments a binary serves.
type Environments func() ([]env.Environment, error)

// exitCode is an error that only carries an exit status: the command has
// already printed what the user needs.
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// Main runs the command line args (args[0] is the program name) against the
// environments envs returns, and returns the process's exit code.
func Main(args []string, envs Environments) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return Run(ctx, args, envs, os.Stdout, os.Stderr)
}

// Run is Main with its context and output streams given.
func Run(ctx context.Context, args []string, envs Environments, stdout, stderr io.Writer) int {
	app := App(envs)
	app.Writer, app.ErrWriter = stdout, stderr
	err := app.RunContext(ctx, args)
	var code exitCode
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &code):
		return int(code)
	}
	msg := strings.TrimPrefix(err.Error(), "error: ")
	fmt.Fprintf(stderr, "error: %s\n", msg)
	return ExitTrouble
}

// App returns the command tree.
func App(envs Environments) *cli.App {
	return &cli.App{
		Name:  "oracle",
		Usage: "run agents through evaluation environments and gate behaviour on frozen baselines",
		Description: "oracle rolls agents through the tasks of evaluation environments, writes deterministic artifacts\n" +
			"(result.json, state-diff.json), freezes them as baselines when behaviour is known good (record),\n" +
			"and gates CI by re-running and comparing byte for byte (check).",
		HideHelpCommand:      true,
		EnableBashCompletion: false,
		ExitErrHandler:       func(*cli.Context, error) {},
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dir", Aliases: []string{"C"}, Value: ".", Usage: "project `folder` holding .silo/"},
			&cli.BoolFlag{Name: "no-color", Usage: "never colour the output (NO_COLOR is respected too)"},
		},
		Commands: []*cli.Command{
			runCommand(envs),
			recordCommand(envs),
			checkCommand(envs),
			diffCommand(),
			listCommand(envs),
			verifierCommand(envs),
		},
	}
}

// usageError is a mistake in the command line.
func usageError(format string, args ...any) error {
	return fmt.Errorf("usage: "+format, args...)
}
