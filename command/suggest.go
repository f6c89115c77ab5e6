package command

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/agent-oracle/oracle/env"
	"github.com/urfave/cli/v2"
)

// nearestName returns the name of names closest to name, ignoring case:
// one that name starts (when name has three characters or more), or one
// within two edits of it and shorter than that distance, or "" when none
// is that close. Of two as close, the first. Digits are never a typo: a
// name whose digits are not name's (TASK-001 for TASK-008) is another
// name, not a near one.
func nearestName(name string, names []string) string {
	best, bestDist := "", 3
	lower := strings.ToLower(name)
	for _, n := range names {
		ln := strings.ToLower(n)
		if digits(ln) != digits(lower) {
			continue
		}
		d := editDistance(lower, ln)
		if len(name) >= 3 && strings.HasPrefix(ln, lower) {
			d = 1
		}
		if d < bestDist && d < len(n) {
			best, bestDist = n, d
		}
	}
	return best
}

// digits are the digits of s, in order.
func digits(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, s)
}

// flagMistake is a mistake in a command line's flags, worded for a person,
// and the flag meant, when a known one is near the one given.
type flagMistake struct {
	msg, near string
}

// findFlagMistake finds the first mistake the flag parser stops at in args,
// the arguments of a command whose flags are flags: an unknown flag (with
// the nearest known one), a value that does not parse (with what the flag
// wants), a flag given no value. It returns nil when it finds none, and the
// parser's own words are then given.
func findFlagMistake(flags []cli.Flag, args []string) *flagMistake {
	set := flag.NewFlagSet("", flag.ContinueOnError)
	set.SetOutput(io.Discard)
	byName := map[string]cli.Flag{}
	var names []string
	for _, f := range flags {
		if f.Apply(set) != nil {
			return nil
		}
		for _, n := range f.Names() {
			byName[n] = f
		}
		names = append(names, f.Names()[0])
	}
	for len(args) > 0 {
		arg := args[0]
		if len(arg) < 2 || arg[0] != '-' || arg == "--" {
			return nil // the arguments start: the flags are read
		}
		dashes := arg[:len(arg)-len(strings.TrimLeft(arg, "-"))]
		name, value, hasValue := strings.Cut(arg[len(dashes):], "=")
		if len(dashes) > 2 || name == "" {
			return nil
		}
		args = args[1:]
		f := set.Lookup(name)
		if f == nil {
			return &flagMistake{msg: "flag provided but not defined: " + printable("-"+name), near: nearestName(name, names)}
		}
		typed := dashes + name
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			if !hasValue {
				value = "true"
			}
		} else if !hasValue {
			if len(args) == 0 {
				return &flagMistake{msg: typed + " needs a value" + wantText(byName[name], "; want ")}
			}
			value, args = args[0], args[1:]
		}
		if err := f.Value.Set(value); err != nil {
			if want := wantText(byName[name], "want "); want != "" {
				return &flagMistake{msg: fmt.Sprintf("%s %q: %s", typed, value, want)}
			}
			return &flagMistake{msg: fmt.Sprintf("%s %q: %v", typed, value, err)}
		}
	}
	return nil
}

// printable is s, quoted when a terminal would not show it as it is.
func printable(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return strconv.Quote(s)
	}
	return s
}

// wantText is what a value of f is, after prefix: "a duration such as
// 30s"; "" for a flag that takes any text.
func wantText(f cli.Flag, prefix string) string {
	var want string
	switch f.(type) {
	case *cli.DurationFlag:
		want = "a duration such as 30s"
	case *cli.IntFlag, *cli.Int64Flag, *cli.UintFlag, *cli.Uint64Flag:
		want = "a whole number such as 4"
	case *cli.Float64Flag:
		want = "a number such as 0.5"
	case *cli.BoolFlag:
		want = "true or false"
	default:
		return ""
	}
	return prefix + want
}

// dashed spells a flag's name as typed: --timeout, -C.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// flagUsageError is the usage error of the command at path, whose flags
// are flags, that could not parse args: the mistake findFlagMistake finds,
// or the parser's error err when it finds none.
func flagUsageError(err error, flags []cli.Flag, args []string, path string) error {
	m := findFlagMistake(flags, args)
	switch {
	case m == nil:
		return usageError("%v; see %s --help", err, path)
	case m.near != "":
		return usageError("%s; did you mean %s? see %s --help", m.msg, dashed(m.near), path)
	}
	return usageError("%s; see %s --help", m.msg, path)
}

// positive refuses, one flag at a time, a number or a duration of fields
// (the options fs fills) that is not above zero.
func positive(fs *flags, fields ...any) error {
	for _, field := range fields {
		name := fs.names[field]
		switch v := field.(type) {
		case *int:
			if *v < 1 {
				return usageError("--%s %d: want a whole number of at least 1", name, *v)
			}
		case *time.Duration:
			if *v <= 0 {
				return usageError("--%s %s: want a duration above zero, such as 30s", name, *v)
			}
		}
	}
	return nil
}

// notFoundFlags are the flags whose values a not-found error of each code
// is about.
var notFoundFlags = map[string]string{
	env.CodeEnvNotFound:   "env",
	env.CodeTaskNotFound:  "task",
	env.CodeAgentNotFound: "agent",
}

// withNearest adds to an error about an environment, task or agent name
// given with --env, --task or --agent that names none the nearest name
// that exists, if one is near: "; did you mean crm?".
func withNearest(c *cli.Context, err error) error {
	coded, ok := err.(*env.Error)
	if !ok || len(coded.Known) == 0 || notFoundFlags[coded.Code] == "" {
		return err
	}
	for _, given := range flagValues(c, notFoundFlags[coded.Code]) {
		if slices.Contains(coded.Known, given) || strings.ContainsAny(given, "*?[") {
			continue
		}
		if near := nearestName(given, coded.Known); near != "" {
			e := *coded
			e.Message += "; did you mean " + near + "?"
			return &e
		}
		break // the first name that names nothing is the one reported
	}
	return err
}

// flagValues are the values the command line gave the text flag name,
// in order.
func flagValues(c *cli.Context, name string) []string {
	for _, ctx := range c.Lineage() {
		if !ctx.IsSet(name) {
			continue
		}
		switch ctx.Value(name).(type) {
		case string:
			return []string{ctx.String(name)}
		case cli.StringSlice:
			return ctx.StringSlice(name)
		}
	}
	return nil
}
