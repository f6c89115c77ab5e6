package command

import (
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// helpCommand is "help [COMMAND [SUBCOMMAND]]": the help of the program or
// of one command, and the nearest command for a mistyped one.
func helpCommand() *cli.Command {
	return &cli.Command{
		Name:      "help",
		Aliases:   []string{"h"},
		Usage:     "show the help of the program or of a command",
		ArgsUsage: "[COMMAND [SUBCOMMAND]]",
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return cli.ShowAppHelp(c)
			}
			cmds, path := c.App.Commands, ""
			var found *cli.Command
			for _, name := range c.Args().Slice() {
				cmd := findCommand(cmds, name)
				if cmd == nil {
					return notACommand(c.App.Name, path, name, cmds)
				}
				found, cmds, path = cmd, cmd.Subcommands, strings.TrimSpace(path+" "+cmd.Name)
			}
			tmpl := cli.CommandHelpTemplate
			if len(found.Subcommands) > 0 {
				tmpl = cli.SubcommandHelpTemplate
			}
			cli.HelpPrinter(c.App.Writer, tmpl, found)
			return nil
		},
	}
}

// unknownCommand is the action of the program and of the commands that
// only group subcommands: with no argument their help, with one a usage
// error naming the nearest command.
func unknownCommand(c *cli.Context) error {
	if err := checkEmptyFlags(c); err != nil {
		return err // oracle -C "" alone: the commands check this in Before
	}
	if c.NArg() == 0 {
		if c.Command == nil || c.Command.Name == c.App.Name {
			return cli.ShowAppHelp(c)
		}
		return cli.ShowSubcommandHelp(c)
	}
	cmds, path := c.App.Commands, ""
	if c.Command != nil && c.Command.Name != c.App.Name {
		cmds, path = c.Command.Subcommands, strings.TrimSpace(strings.TrimPrefix(c.Command.HelpName, c.App.Name))
	}
	return notACommand(c.App.Name, path, c.Args().First(), cmds)
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, cmd := range cmds {
		if cmd.HasName(name) {
			return cmd
		}
	}
	return nil
}

// notACommand is the usage error for name, which is none of cmds, the
// subcommands of path ("" for the program's commands).
func notACommand(program, path, name string, cmds []*cli.Command) error {
	full := strings.TrimSpace(path + " " + name)
	help := strings.TrimSpace(program + " " + path)
	if near := nearest(name, cmds); near != "" {
		return usageError("unknown command %q; did you mean %q? see %s --help", full, strings.TrimSpace(path+" "+near), help)
	}
	return usageError("unknown command %q; see %s --help", full, help)
}

// nearest returns the name of the command of cmds whose name or alias
// is nearest to name (see nearestName), or "".
func nearest(name string, cmds []*cli.Command) string {
	var names, owners []string
	for _, cmd := range cmds {
		if cmd.Hidden {
			continue
		}
		for _, n := range cmd.Names() {
			names, owners = append(names, n), append(owners, cmd.Name)
		}
	}
	if near := nearestName(name, names); near != "" {
		return owners[slices.Index(names, near)]
	}
	return ""
}

// editDistance is the optimal string alignment distance of a and b: the
// insertions, deletions, substitutions and swaps of two neighbours that
// turn one into the other.
func editDistance(a, b string) int {
	x, y := []rune(a), []rune(b)
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)]
}

// completionCommand prints a shell completion script.
func completionCommand() *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print the shell completion script for bash, zsh or fish",
		ArgsUsage: "bash|zsh|fish",
		Description: "Load it in your shell, e.g.\n" +
			"  bash: source <(PROGRAM completion bash)\n" +
			"  zsh:  source <(PROGRAM completion zsh)\n" +
			"  fish: PROGRAM completion fish | source",
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageError("completion takes one shell: bash, zsh or fish; e.g. %s completion bash", c.App.Name)
			}
			var script string
			switch shell := c.Args().First(); shell {
			case "bash":
				script = shellScript(bashCompletion, c.App.Name)
			case "zsh":
				script = shellScript(zshCompletion, c.App.Name)
			case "fish":
				s, err := c.App.ToFishCompletion()
				if err != nil {
					return fmt.Errorf("completion fish: %w", err)
				}
				script = s + fishNameCompletions(c.App)
			default:
				return usageError("completion: %q is not bash, zsh or fish", shell)
			}
			_, err := fmt.Fprint(c.App.Writer, script)
			return err
		},
	}
}

// manCommand prints the manual page, made from the command tree.
func manCommand() *cli.Command {
	return &cli.Command{
		Name:  "man",
		Usage: "print the manual page (roff), e.g. PROGRAM man > PROGRAM.1",
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageError("man takes no arguments, got %q", c.Args().First())
			}
			page, err := c.App.ToManWithSection(1)
			if err != nil {
				return fmt.Errorf("man: %w", err)
			}
			_, err = fmt.Fprint(c.App.Writer, page)
			return err
		},
	}
}

// shellScript fills a completion script in for the program called name.
func shellScript(script, name string) string {
	fn := strings.Map(func(r rune) rune {
		if r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, name)
	return strings.NewReplacer("FUNC", fn, "PROGRAM", name).Replace(script)
}

// bashCompletion asks the program for the words that may follow
// (--generate-bash-completion) at each tab.
const bashCompletion = `# bash completion for PROGRAM; load with: source <(PROGRAM completion bash)
_FUNC_complete() {
  local cur words
  COMPREPLY=()
  cur="${COMP_WORDS[COMP_CWORD]}"
  words=("${COMP_WORDS[@]:0:$COMP_CWORD}")
  local opts
  if [[ "$cur" == -* ]]; then
    opts=$("${words[@]}" "$cur" --generate-bash-completion 2>/dev/null)
  else
    opts=$("${words[@]}" --generate-bash-completion 2>/dev/null)
  fi
  COMPREPLY=($(compgen -W "${opts}" -- "${cur}"))
  return 0
}
complete -o bashdefault -o default -F _FUNC_complete PROGRAM
`

const zshCompletion = `#compdef PROGRAM
# zsh completion for PROGRAM; load with: source <(PROGRAM completion zsh)
_FUNC_complete() {
  local -a opts
  local cur
  cur=${words[-1]}
  if [[ "$cur" == "-"* ]]; then
    opts=("${(@f)$(${words[@]:0:#words[@]-1} ${cur} --generate-bash-completion 2>/dev/null)}")
  else
    opts=("${(@f)$(${words[@]:0:#words[@]-1} --generate-bash-completion 2>/dev/null)}")
  fi
  if [[ "${opts[1]}" != "" ]]; then
    _describe 'values' opts
  else
    _files
  fi
}
compdef _FUNC_complete PROGRAM
`
