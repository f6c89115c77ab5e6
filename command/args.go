package command

import (
	"errors"
	"flag"
	"io"
	"strings"

	"github.com/urfave/cli/v2"
)

// positional returns the arguments of a command that takes some, reading
// any flags written after them, as in oracle verifier add VER-007 --env
// demo: the command line parser stops at the first argument, so the flags
// that follow are parsed here into c's own flags (and so into the
// command's options). Everything after "--" is an argument.
func positional(c *cli.Context, path string) ([]string, error) {
	set := flag.NewFlagSet(path, flag.ContinueOnError)
	set.SetOutput(io.Discard)
	for _, f := range c.Command.Flags {
		_, boolean := f.(*cli.BoolFlag)
		for _, name := range f.Names() {
			set.Var(&reparse{c: c, name: f.Names()[0], boolean: boolean}, name, "")
		}
	}
	var args []string
	rest := c.Args().Slice()
	for len(rest) > 0 {
		switch a := rest[0]; {
		case a == "--":
			args = append(args, rest[1:]...)
			rest = nil
		case a == "-" || !strings.HasPrefix(a, "-"):
			args = append(args, a)
			rest = rest[1:]
		default:
			if err := set.Parse(rest); err != nil {
				if errors.Is(err, flag.ErrHelp) {
					return nil, usageError("see %s --help", path)
				}
				return nil, flagUsageError(err, c.Command.Flags, rest, path)
			}
			rest = set.Args()
		}
	}
	if s := sessionOf(c); s != nil {
		s.project = resolveProjectDir(c) // --dir may come after the arguments
	}
	return args, nil
}

// required refuses a required text flag left empty: the parser does not
// check them, as they may come after the arguments (positional).
func (fs *flags) required(path string, fields ...*string) error {
	for _, f := range fields {
		if strings.TrimSpace(*f) == "" {
			return usageError("--%s is required; see %s --help", fs.names[f], path)
		}
	}
	return nil
}
