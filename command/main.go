package command

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/internal/gctune"
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
// environments envs returns, and returns the process's exit code. Options
// name the binary built on it (WithName, WithVersion).
// The garbage collector is paced for many small rollouts (see gctune)
// unless GOGC or GOMEMLIMIT is set.
func Main(args []string, envs Environments, opts ...Option) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGABRT)
	defer stop()
	defer gctune.Start()()
	return Run(ctx, args, envs, os.Stdout, os.Stderr, opts...)
}

// Run is Main with its context and output streams given.
func Run(ctx context.Context, args []string, envs Environments, stdout, stderr io.Writer, opts ...Option) int {
	app, s := newApp(envs, opts...)
	app.Writer, app.ErrWriter = stdout, stderr
	s.args = slices.Clone(args)
	err := app.RunContext(context.WithValue(ctx, sessionKey{}, s), args)
	var code exitCode
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &code):
		return int(code)
	}
	if wantsJSON(args) {
		if werr := writeJSONError(stdout, err); werr == nil {
			return ExitTrouble
		}
	}
	fmt.Fprintf(stderr, "error: %s\n", safe(err.Error()))
	return ExitTrouble
}

// App returns the command tree.
func App(envs Environments, opts ...Option) *cli.App {
	app, _ := newApp(envs, opts...)
	return app
}

// newApp is App and the session its commands share.
func newApp(envs Environments, opts ...Option) (*cli.App, *session) {
	s := &session{project: "."}
	set := newSettings(opts)
	name := set.name
	// the project's own environments join the binary's (projectenvs.go)
	proj := &projectEnvs{builtin: envs}
	envs = proj.load
	app := &cli.App{
		Name:  name,
		Usage: "run agents through evaluation environments and gate behaviour on frozen baselines",
		Description: name + " rolls agents through the tasks of evaluation environments, writes deterministic artifacts\n" +
			"(result.json, state-diff.json, calls.json), freezes them as baselines when behaviour is known good (record),\n" +
			"and gates CI by re-running and comparing byte for byte (check).",
		EnableBashCompletion: true,
		ExitErrHandler:       func(*cli.Context, error) {},
		Flags:                commonFlags(),
		Version:              set.version,
		OnUsageError: func(c *cli.Context, err error, _ bool) error {
			return flagUsageError(err, c.App.Flags, s.commandLine(), name)
		},
		Action: unknownCommand,
		Commands: []*cli.Command{
			runCommand(envs),
			recordCommand(envs),
			checkCommand(envs),
			mutateCommand(),
			reviewCommand(envs),
			acceptCommand(envs),
			rejectCommand(),
			diffCommand(),
			viewCommand(),
			listCommand(envs),
			serveCommand(envs),
			verifierCommand(envs),
			validateCommand(envs),
			initCommand(),
			generateCommand(),
			taskCommand(),
			toolCommand(),
			helpCommand(),
			completionCommand(),
			manCommand(),
			versionCommand(),
		},
	}
	proj.dir = func() string { return s.project }
	proj.patterns = func() []string { return s.envs }
	app.After = func(*cli.Context) error {
		proj.close()
		return nil
	}
	if cli.HelpFlag != nil {
		// urfave/cli adds --help (-h) only when it adds its own help
		// command; ours replaces that command, so the flag is added here.
		app.Flags = append(app.Flags, cli.HelpFlag)
	}
	for _, cmd := range app.Commands {
		prepare(cmd, name+" "+cmd.Name, s)
	}
	nameHelp(app.Commands, name)
	completeNames(app.Commands, envs)
	return app, s
}

// session is what the commands of one command line share, resolved before
// the command runs.
type session struct {
	args    []string // the command line Run was given, nil when the app was run otherwise
	project string   // the project folder: the innermost --dir (-C), or "."
	envs    []string // the --env patterns given: only the hosts they select start
}

// commandLine is the command line Run was given, without the program's
// name, or nil when the app was run otherwise.
func (s *session) commandLine() []string {
	if s != nil && len(s.args) > 0 {
		return s.args[1:]
	}
	return nil
}

// commandLine is the command line of c's session (session.commandLine).
func commandLine(c *cli.Context) []string { return sessionOf(c).commandLine() }

// sessionKey holds the session in the commands' context.
type sessionKey struct{}

// sessionOf is the session of the command line c is of, or nil for a
// context made otherwise (a test's).
func sessionOf(c *cli.Context) *session {
	if c.Context == nil {
		return nil
	}
	s, _ := c.Context.Value(sessionKey{}).(*session)
	return s
}

// The names of the flags read across verbs: the common flags, and --env,
// whose patterns say which hosts start before any verb runs.
const (
	dirFlag     = "dir"
	noColorFlag = "no-color"
	envFlag     = "env"
)

// commonFlags are accepted before and after the command name.
func commonFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: dirFlag, Aliases: []string{"C"}, Value: ".", Usage: "project `folder` holding .silo/"},
		&cli.BoolFlag{Name: noColorFlag, Usage: "never colour the output (NO_COLOR is respected too)"},
	}
}

// prepare gives a command and its subcommands the common flags, no help
// subcommand, one-line usage errors, the project folder resolved once,
// before the command runs, and an error naming the nearest subcommand for a
// mistyped one.
func prepare(cmd *cli.Command, path string, s *session) {
	cmd.HideHelpCommand = true
	cmd.Flags = append(cmd.Flags, commonFlags()...)
	before := cmd.Before
	cmd.Before = func(c *cli.Context) error {
		if sessionOf(c) == nil { // an App run without Run
			c.Context = context.WithValue(c.Context, sessionKey{}, s)
		}
		if err := checkEmptyFlags(c); err != nil {
			return err
		}
		s.project, s.envs = resolveProjectDir(c), envPatterns(c)
		if dirGiven(c) && !makesProject(path) {
			// a mistyped -C is trouble for every command, also one
			// that would otherwise work without a project (validate)
			if err := checkProjectDir(projectDir(c), c.App.Name); err != nil {
				return err
			}
		}
		if before != nil {
			return before(c)
		}
		return nil
	}
	cmd.OnUsageError = func(c *cli.Context, err error, _ bool) error {
		// the parent's arguments are this command's name and its own
		return flagUsageError(err, cmd.Flags, c.Lineage()[1].Args().Tail(), path)
	}
	if len(cmd.Subcommands) > 0 && cmd.Action == nil {
		cmd.Action = unknownCommand
	}
	if action := cmd.Action; action != nil {
		cmd.Action = func(c *cli.Context) error { return withNearest(c, action(c)) }
	}
	for _, sub := range cmd.Subcommands {
		sub.HelpName = path + " " + sub.Name // for help, which shows commands that have not run
		prepare(sub, path+" "+sub.Name, s)
	}
}

// checkEmptyFlags refuses a text flag given an empty value (--dir "",
// --report-dir "$UNSET", --env ""): it is a mistake, never "unset" nor
// "every case".
func checkEmptyFlags(c *cli.Context) error {
	for _, ctx := range c.Lineage() {
		for _, name := range ctx.LocalFlagNames() {
			empty := false
			switch ctx.Value(name).(type) {
			case string:
				empty = ctx.String(name) == ""
			case cli.StringSlice:
				values := ctx.StringSlice(name)
				empty = len(values) == 0 || slices.Contains(values, "")
			}
			if empty {
				return usageError("%s is given an empty value; give it one or leave the flag out", flagName(ctx, name))
			}
		}
	}
	return nil
}

// flagName spells the flag called name (or one of its aliases) as typed
// with its long name: --dir for -C.
func flagName(ctx *cli.Context, name string) string {
	flags := ctx.App.Flags
	if ctx.Command != nil && ctx.Command.Name != "" {
		flags = ctx.Command.Flags
	}
	for _, f := range flags {
		if names := f.Names(); slices.Contains(names, name) {
			name = names[0]
		}
	}
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// nameHelp writes the program's name into the help of cmds, which name it
// PROGRAM.
func nameHelp(cmds []*cli.Command, name string) {
	for _, cmd := range cmds {
		for _, text := range []*string{&cmd.Usage, &cmd.Description, &cmd.ArgsUsage} {
			*text = strings.ReplaceAll(*text, "PROGRAM", name)
		}
		nameHelp(cmd.Subcommands, name)
	}
}

// projectDir is the project folder of the command line, resolved once
// before the command ran: the --dir (-C) given after the command name, or
// before it, or ".".
func projectDir(c *cli.Context) string {
	if s := sessionOf(c); s != nil {
		return s.project
	}
	return resolveProjectDir(c)
}

// project is projectDir for a command that works in an existing project:
// a folder that does not exist is an error (exit 2), never created.
func project(c *cli.Context) (string, error) {
	dir := projectDir(c)
	return dir, checkProjectDir(dir, c.App.Name)
}

// checkProjectDir refuses a project folder dir that is not an existing
// folder; when it does not exist, the error names the flag that gives the
// folder and program's command that makes one.
func checkProjectDir(dir, program string) error {
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("no project folder %s; give the folder that holds .silo with --dir (or -C), or make one with %s init", dir, program)
	case err != nil:
		return fmt.Errorf("no project folder %s: %w", dir, err)
	case !info.IsDir():
		return fmt.Errorf("no project folder %s: not a folder", dir)
	}
	return nil
}

// resolveProjectDir reads --dir from the command line: the innermost one given.
func resolveProjectDir(c *cli.Context) string {
	for _, ctx := range c.Lineage() {
		if ctx.IsSet(dirFlag) {
			return ctx.String(dirFlag)
		}
	}
	return "."
}

// dirGiven reports whether --dir (-C) was given anywhere on the line.
func dirGiven(c *cli.Context) bool {
	for _, ctx := range c.Lineage() {
		if ctx.IsSet(dirFlag) {
			return true
		}
	}
	return false
}

// makesProject reports whether the command at path (e.g. "oracle init")
// may be given a project folder that does not exist yet, or needs none:
// init, help, completion, man and version.
func makesProject(path string) bool {
	words := strings.Fields(path)
	return len(words) > 1 && slices.Contains([]string{"init", "help", "h", "completion", "man", "version"}, words[1])
}

// noColor reports whether --no-color was given anywhere on the line.
func noColor(c *cli.Context) bool {
	for _, ctx := range c.Lineage() {
		if ctx.IsSet(noColorFlag) && ctx.Bool(noColorFlag) {
			return true
		}
	}
	return false
}

// program is how the binary calls itself in messages: its name, then the
// command path, e.g. "oracle verifier add".
func program(c *cli.Context, path string) string {
	return c.App.Name + " " + path
}
