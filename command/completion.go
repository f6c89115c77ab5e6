package command

import (
	"fmt"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/agent-oracle/oracle/env"
	"github.com/urfave/cli/v2"
)

// completedFlags are the flags whose values shell completion completes:
// the names of the environments, tasks and agents the binary serves.
var completedFlags = []string{"env", "task", "agent"}

// schemesOf are, for each command whose --agent takes references of
// env.Schemes, the schemes it takes: run every one, record replay:.
var schemesOf = map[string]func(*env.Scheme) bool{
	"run":    func(*env.Scheme) bool { return true },
	"record": func(s *env.Scheme) bool { return s == env.ReplayScheme },
}

// completeNames makes the shell completion of cmds (and their
// subcommands) complete the value of --env, --task and --agent with the
// names envs serves: the environments, the tasks and the built-in agents
// of the environments --env selects (all when it is not given).
func completeNames(cmds []*cli.Command, envs Environments) {
	for _, cmd := range cmds {
		completeNames(cmd.Subcommands, envs)
		if len(namedFlags(cmd)) == 0 {
			continue
		}
		def := cmd.BashComplete
		if def == nil {
			def = cli.DefaultCompleteWithFlags(cmd)
		}
		cmd.BashComplete = func(c *cli.Context) {
			kind := completing(c, cmd)
			if kind == "" {
				def(c)
				return
			}
			names := completionNames(c, envs, kind)
			if keep := schemesOf[cmd.Name]; kind == "agent" && keep != nil {
				// then the schemes of the references the command takes
				for _, s := range env.Schemes {
					if keep(s) {
						names = append(names, s.Prefix())
					}
				}
			}
			for _, name := range names {
				fmt.Fprintln(c.App.Writer, name)
			}
		}
	}
}

// namedFlags are the flags of cmd whose values completion completes, by
// their names and aliases.
func namedFlags(cmd *cli.Command) map[string]string {
	kinds := map[string]string{}
	for _, f := range cmd.Flags {
		names := f.Names()
		if slices.Contains(completedFlags, names[0]) {
			for _, n := range names {
				kinds[n] = names[0]
			}
		}
	}
	return kinds
}

// completing is the flag of cmd whose value the shell completes (env,
// task or agent): the word before the one completed, or "".
func completing(c *cli.Context, cmd *cli.Command) string {
	words := commandLine(c)
	if words == nil && len(os.Args) > 1 {
		words = os.Args[1:]
	}
	if n := len(words); n > 0 && words[n-1] == "--generate-bash-completion" {
		words = words[:n-1]
	}
	if len(words) == 0 {
		return ""
	}
	last := words[len(words)-1]
	if !strings.HasPrefix(last, "-") {
		return ""
	}
	return namedFlags(cmd)[strings.TrimLeft(last, "-")]
}

// completionNames are the names of kind (env, task or agent) that envs
// serves, each once, in order; tasks and agents of the environments the
// command line's --env selects.
func completionNames(c *cli.Context, envs Environments, kind string) []string {
	list, err := envs()
	if err != nil {
		return nil
	}
	selected := flagValues(c, "env")
	var names []string
	for _, e := range list {
		if kind == "env" {
			names = append(names, e.Name())
			continue
		}
		if len(selected) > 0 && !slices.ContainsFunc(selected, func(p string) bool { ok, _ := path.Match(p, e.Name()); return ok }) {
			continue
		}
		switch kind {
		case "task":
			tasks, err := e.Tasks()
			if err != nil {
				continue
			}
			for _, t := range tasks {
				names = append(names, t.ID)
			}
		case "agent":
			names = append(names, e.Agents()...)
		}
	}
	seen := map[string]bool{}
	return slices.DeleteFunc(names, func(n string) bool {
		dup := seen[n]
		seen[n] = true
		return dup
	})
}

// fishNameCompletions are the lines of a fish completion script that
// complete the values of --env, --task and --agent of each command of app
// by asking the program, as the bash and zsh scripts do.
func fishNameCompletions(app *cli.App) string {
	var b strings.Builder
	var add func(cmds []*cli.Command)
	add = func(cmds []*cli.Command) {
		for _, cmd := range cmds {
			for _, f := range cmd.Flags {
				names := f.Names()
				if !slices.Contains(completedFlags, names[0]) {
					continue
				}
				short := ""
				for _, n := range names[1:] {
					if len(n) == 1 {
						short = " -s " + n
					}
				}
				fmt.Fprintf(&b, "complete -c %s -n '__fish_seen_subcommand_from %s' -f -l %s%s -r -a '(eval (commandline -opc) --generate-bash-completion 2>/dev/null)'\n",
					app.Name, cmd.Name, names[0], short)
			}
			add(cmd.Subcommands)
		}
	}
	add(app.Commands)
	return b.String()
}
