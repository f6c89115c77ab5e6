package command

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agent-oracle/oracle/command/internal/scaffold"
	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/internal/safeio"
	"github.com/urfave/cli/v2"
)

// verifierAddOptions are verifier add's flags.
type verifierAddOptions struct {
	flags
	Env, Task, Name string
}

// verifierAddCommand is oracle verifier add.
func verifierAddCommand() *cli.Command {
	o := &verifierAddOptions{}
	o.String(&o.Env, &cli.StringFlag{Name: envFlag, Aliases: []string{"e"}, Usage: "environment `name`"})
	o.String(&o.Task, &cli.StringFlag{Name: "task", Aliases: []string{"t"}, Usage: "`id` of the task it grades"})
	o.String(&o.Name, &cli.StringFlag{Name: "name", Aliases: []string{"n"}, Usage: "what it checks, e.g. \"Invoice escalated\" (default: the task's title)"})
	return &cli.Command{
		Name:      "add",
		Usage:     "add a verifier to an environment's Go package and register it",
		ArgsUsage: "VER-ID",
		Description: "Writes verifier_<id>.go in the folder the environment's manifest names: a verifier of the task whose\n" +
			"only check fails on purpose (env.NotImplemented), since an unimplemented verifier must never report a\n" +
			"passing run. Then regenerates registry.go: a file on disk is not a grader until it is registered.\n" +
			"Refuses to overwrite a file.",
		Flags:  o.list,
		Action: func(c *cli.Context) error { return o.run(c) },
	}
}

// run writes the verifier and registers it.
func (o *verifierAddOptions) run(c *cli.Context) error {
	cmd := program(c, "verifier add")
	args, err := positional(c, cmd)
	if err != nil {
		return err
	}
	if err := o.required(cmd, &o.Env, &o.Task); err != nil {
		return err
	}
	if len(args) != 1 {
		return usageError("verifier add takes one verifier id, e.g. %s verifier add VER-007 --env %s --task TASK-007", c.App.Name, o.Env)
	}
	id, taskID := args[0], o.Task
	if err := scaffold.CheckVerifierID(id); err != nil {
		return usageError("%v", err)
	}
	if err := env.CheckName(taskID); err != nil {
		return usageError("--task: %v", err)
	}
	project := projectDir(c)
	_, dir, err := envPackage(project, o.Env, c.App.Name)
	if err != nil {
		return err
	}
	task, found, err := taskOnDisk(dir, taskID)
	if err != nil {
		return err
	}
	name := o.Name
	if name == "" && found {
		name = task.Title
	}
	path, regPath, err := addToPackage(dir, func(pkg string) (scaffold.File, error) {
		return scaffold.Verifier(pkg, id, taskID, name)
	}, scaffold.VerifierIdent(id))
	if err != nil {
		return err
	}
	w := c.App.Writer
	file := shown(project, path)
	fmt.Fprintf(w, "Created %s\n", file)
	fmt.Fprintf(w, "Registered %s in %s\n", scaffold.VerifierIdent(id), shown(project, regPath))
	fmt.Fprintf(w, "Next: replace the failing TODO check in %s.\n", file)
	if !found {
		fmt.Fprintf(c.App.ErrWriter, "note: %s has no task %s yet; add it with %s task add %s --env %s --verifier %s --title … --instruction …\n",
			o.Env, taskID, c.App.Name, taskID, o.Env, id)
	} else if task.VerifierID != id {
		fmt.Fprintf(c.App.ErrWriter, "note: task %s names verifier %s, not %s; set its verifierId to use this one\n", taskID, task.VerifierID, id)
	}
	return nil
}

// taskOnDisk reads the task files of a package folder and returns the one
// with that id, if any.
func taskOnDisk(dir, id string) (env.Task, bool, error) {
	if _, err := os.Stat(filepath.Join(dir, "tasks")); errors.Is(err, fs.ErrNotExist) {
		return env.Task{}, false, nil
	}
	// a link or a FIFO among the task files is refused, never read or waited on
	if err := safeio.CheckTree(filepath.Join(dir, "tasks")); err != nil {
		return env.Task{}, false, err
	}
	tasks, err := env.LoadTasks(safeio.DirFS(dir))
	if err != nil {
		return env.Task{}, false, &env.Error{Code: "task_invalid", Err: err, Message: fmt.Sprintf("%v; fix the task file first", err)}
	}
	for _, t := range tasks {
		if t.ID == id {
			return t, true, nil
		}
	}
	return env.Task{}, false, nil
}
