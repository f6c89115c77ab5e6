package command

import (
	"errors"
	"flag"
	"io"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// positional returns the arguments of a command that takes some, reading
// any flags written after them, as in oracle verifier add VER-007 --env
// demo: the command line parser stops at the first argument, so the flags
// that follow are parsed here and set on c. Everything after "--" is an
// argument. The required flags, checked here rather than by the parser,
// must then be set.
func positional(c *cli.Context, path string, required ...string) ([]string, error) {
	set := flag.NewFlagSet(path, flag.ContinueOnError)
	set.SetOutput(io.Discard)
	for _, f := range c.Command.Flags {
		if err := f.Apply(set); err != nil {
			return nil, err
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
	var setErr error
	set.Visit(func(f *flag.Flag) {
		for _, cf := range c.Command.Flags {
			names := cf.Names()
			if !slices.Contains(names, f.Name) {
				continue
			}
			for _, name := range names {
				if err := c.Set(name, f.Value.String()); err != nil && setErr == nil {
					setErr = usageError("--%s: %v; see %s --help", f.Name, err, path)
				}
			}
		}
	})
	if setErr != nil {
		return nil, setErr
	}
	if c.App.Metadata != nil {
		c.App.Metadata[projectKey] = resolveProjectDir(c) // --dir may come after the arguments
	}
	for _, name := range required {
		if strings.TrimSpace(c.String(name)) == "" {
			return nil, usageError("--%s is required; see %s --help", name, path)
		}
	}
	return args, nil
}
