package command

import (
	"flag"
	"time"

	"github.com/urfave/cli/v2"
)

// flags are the flags of one verb, each bound to the field of the verb's
// options it fills (urfave's Destination), and which of them the command
// line gave. A verb's options are filled by its flags and nowhere else:
// its run function reads fields, never a flag by its name, so that a flag
// renamed or dropped from the options is a compile error.
type flags struct {
	list  []cli.Flag
	names map[any]string // the field a flag fills: the flag's name
}

// add appends f, which fills field.
func (fs *flags) add(field any, f cli.Flag) {
	if fs.names == nil {
		fs.names = map[any]string{}
	}
	fs.names[field] = f.Names()[0]
	fs.list = append(fs.list, f)
}

// String binds f to dst.
func (fs *flags) String(dst *string, f *cli.StringFlag) {
	f.Destination = dst
	fs.add(dst, f)
}

// Bool binds f to dst.
func (fs *flags) Bool(dst *bool, f *cli.BoolFlag) {
	f.Destination = dst
	fs.add(dst, f)
}

// Int binds f to dst.
func (fs *flags) Int(dst *int, f *cli.IntFlag) {
	f.Destination = dst
	fs.add(dst, f)
}

// Int64 binds f to dst.
func (fs *flags) Int64(dst *int64, f *cli.Int64Flag) {
	f.Destination = dst
	fs.add(dst, f)
}

// Float64 binds f to dst.
func (fs *flags) Float64(dst *float64, f *cli.Float64Flag) {
	f.Destination = dst
	fs.add(dst, f)
}

// Duration binds f to dst.
func (fs *flags) Duration(dst *time.Duration, f *cli.DurationFlag) {
	f.Destination = dst
	fs.add(dst, f)
}

// Strings binds f, a repeatable flag, to dst.
func (fs *flags) Strings(dst *cli.StringSlice, f *cli.StringSliceFlag) {
	f.Destination = dst
	fs.add(dst, f)
}

// given returns, of fields, the flag of the first one the command line of
// c gave, spelled --name, or "" when it gave none of them.
func (fs *flags) given(c *cli.Context, fields ...any) string {
	for _, field := range fields {
		if name, ok := fs.names[field]; ok && c.IsSet(name) {
			return "--" + name
		}
	}
	return ""
}

// isSet reports whether the command line of c gave the flag that fills
// field.
func (fs *flags) isSet(c *cli.Context, field any) bool { return fs.given(c, field) != "" }

// reparse is a flag.Value that sets a flag of c by its own name: the
// flags written after a command's arguments (positional) are parsed into
// the command's flag set, and so into its options.
type reparse struct {
	c       *cli.Context
	name    string
	boolean bool
}

func (r *reparse) String() string { return "" }

func (r *reparse) Set(v string) error { return r.c.Set(r.name, v) }

func (r *reparse) IsBoolFlag() bool { return r.boolean }

var _ flag.Value = (*reparse)(nil)
