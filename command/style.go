package command

import (
	"io"
	"os"

	"github.com/agent-oracle/oracle/oracle/render"
	"github.com/fatih/color"
	"github.com/mattn/go-isatty"
	"github.com/urfave/cli/v2"
)

// style colours output for a terminal, and leaves it plain when --no-color
// or NO_COLOR is set or the output is not a terminal.
type style struct {
	on                             bool
	good, bad, warn, dim, bold, hi *color.Color
	del, ins                       *color.Color // the words of a word diff, not by colour alone
}

func newStyle(c *cli.Context, w io.Writer) *style {
	on := !noColor(c) && os.Getenv("NO_COLOR") == "" && isTerminal(w)
	s := &style{on: on,
		good: color.New(color.FgGreen), bad: color.New(color.FgRed), warn: color.New(color.FgYellow),
		dim: color.New(color.Faint), bold: color.New(color.Bold), hi: color.New(color.FgCyan),
		del: color.New(color.FgRed, color.CrossedOut), ins: color.New(color.FgGreen, color.Underline),
	}
	for _, col := range []*color.Color{s.good, s.bad, s.warn, s.dim, s.bold, s.hi, s.del, s.ins} {
		if on {
			col.EnableColor()
		} else {
			col.DisableColor()
		}
	}
	return s
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

func (s *style) Good(a ...any) string { return s.good.Sprint(a...) }
func (s *style) Bad(a ...any) string  { return s.bad.Sprint(a...) }
func (s *style) Warn(a ...any) string { return s.warn.Sprint(a...) }
func (s *style) Dim(a ...any) string  { return s.dim.Sprint(a...) }
func (s *style) Bold(a ...any) string { return s.bold.Sprint(a...) }
func (s *style) Hi(a ...any) string   { return s.hi.Sprint(a...) }

// colors paints the text reports with this style; none when colour is off,
// so that word diffs are marked [-deleted-]{+inserted+} instead. On a
// terminal the deleted words are red and struck through, the inserted ones
// green and underlined.
func (s *style) colors() render.Colors {
	if !s.on {
		return render.Colors{}
	}
	return render.Colors{Good: s.Good, Bad: s.Bad, Warn: s.Warn, Dim: s.Dim, Bold: s.Bold,
		Del: s.del.Sprint, Ins: s.ins.Sprint}
}
