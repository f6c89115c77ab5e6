package command

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/agent-oracle/oracle/command/internal/scaffold"
	"github.com/agent-oracle/oracle/env"
	"github.com/urfave/cli/v2"
)

func taskCommand() *cli.Command {
	return &cli.Command{
		Name:        "task",
		Usage:       "scaffold tasks",
		Subcommands: []*cli.Command{taskAddCommand()},
	}
}

// taskAddOptions are task add's flags.
type taskAddOptions struct {
	flags
	Env, Title, Instruction, Verifier, Difficulty string
}

func taskAddCommand() *cli.Command {
	o := &taskAddOptions{}
	o.String(&o.Env, &cli.StringFlag{Name: envFlag, Aliases: []string{"e"}, Usage: "environment `name`"})
	o.String(&o.Title, &cli.StringFlag{Name: "title", Usage: "short label for listings"})
	o.String(&o.Instruction, &cli.StringFlag{Name: "instruction", Aliases: []string{"i"}, Usage: "the only text the agent receives"})
	o.String(&o.Verifier, &cli.StringFlag{Name: "verifier", Usage: "`id` of the verifier that grades it (default: from the task's number, TASK-007 → VER-007)"})
	o.String(&o.Difficulty, &cli.StringFlag{Name: "difficulty", Usage: "easy, medium or hard"})
	return &cli.Command{
		Name:      "add",
		Usage:     "add a task file to an environment",
		ArgsUsage: "TASK-ID",
		Description: "Writes tasks/TASK-ID.json in the folder the environment's manifest names, checked as the environment\n" +
			"will read it. Refuses a task id that exists and a file that exists. Tasks are embedded in the binary\n" +
			"at build time: rebuild to pick the new one up.",
		Flags:  o.list,
		Action: func(c *cli.Context) error { return o.run(c) },
	}
}

// run writes the task file.
func (o *taskAddOptions) run(c *cli.Context) error {
	path := program(c, "task add")
	args, err := positional(c, path)
	if err != nil {
		return err
	}
	if err := o.required(path, &o.Env, &o.Title, &o.Instruction); err != nil {
		return err
	}
	if len(args) != 1 {
		return usageError("task add takes one task id, e.g. %s task add TASK-007 --env %s --title … --instruction …", c.App.Name, o.Env)
	}
	id, envName := args[0], o.Env
	verifier := o.Verifier
	if verifier == "" {
		var ok bool
		if verifier, ok = defaultVerifierID(id); !ok {
			return usageError("cannot derive a verifier id from %q, which does not end in a number; name one with --verifier", id)
		}
	}
	f, err := scaffold.TaskFile(env.Task{
		ID: id, Title: o.Title, Instruction: o.Instruction,
		Difficulty: o.Difficulty, VerifierID: verifier,
	})
	if err != nil {
		return usageError("%v", err)
	}
	project := projectDir(c)
	_, dir, err := envPackage(project, envName, c.App.Name)
	if err != nil {
		return err
	}
	file := filepath.Join(dir, filepath.FromSlash(f.Path))
	if err := checkInProject(project, file); err != nil {
		return err
	}
	if _, found, err := taskOnDisk(dir, id); err != nil {
		return err
	} else if found {
		return existsError("%s already has a task %s; choose another id", envName, id)
	}
	if err := writeNew(project, file, f.Data); err != nil {
		return err
	}
	w := c.App.Writer
	fmt.Fprintf(w, "Created %s\n", shown(project, file))
	fmt.Fprintf(w, "Tasks are embedded at build time: rebuild to pick it up.\n")
	if _, err := os.Stat(filepath.Join(dir, scaffold.VerifierFile(verifier))); err != nil {
		fmt.Fprintf(w, "Next: %s verifier add %s --env %s --task %s --name %q\n", c.App.Name, verifier, envName, id, o.Title)
	}
	return nil
}

var taskNumber = regexp.MustCompile(`([0-9]+)$`)

// defaultVerifierID derives a verifier id from a task id's number:
// TASK-007 gives VER-007.
func defaultVerifierID(taskID string) (string, bool) {
	m := taskNumber.FindStringSubmatch(taskID)
	if m == nil {
		return "", false
	}
	return "VER-" + m[1], true
}
