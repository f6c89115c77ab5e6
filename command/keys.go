package command

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode"

	"github.com/mattn/go-isatty"
)

// answers reads review's answers: on a terminal one key each, no Enter
// needed (the terminal is in cbreak mode while review asks: no line
// editing, no echo, signals as usual; review echoes the key), otherwise
// one line each.
type answers struct {
	ctx     context.Context
	w       io.Writer // where a key is echoed
	in      *bufio.Reader
	keys    bool
	restore func()
	ask     chan struct{} // next asks the reader for one answer
	got     chan keyRead  // and gets it
	err     error         // the reader's last: it reads no more
}

type keyRead struct {
	s   string
	err error
}

// newAnswers reads answers from in, one key each when in is a terminal
// that cbreak mode can be set on; close restores the terminal.
func newAnswers(ctx context.Context, in io.Reader, w io.Writer) *answers {
	a := &answers{ctx: ctx, w: w, in: bufio.NewReader(in), restore: func() {}}
	if f, ok := in.(*os.File); ok && isatty.IsTerminal(f.Fd()) {
		if restore, err := cbreak(int(f.Fd())); err == nil {
			a.keys, a.restore = true, restore
		}
	}
	return a
}

// close restores the terminal.
func (a *answers) close() { a.restore() }

// next is the next answer: a key (one rune), or a line without its
// spaces; io.EOF at the end of input (Ctrl-D on a terminal). The context
// ends the wait.
func (a *answers) next() (string, error) {
	if a.err != nil {
		return "", a.err
	}
	if a.ask == nil {
		a.ask, a.got = make(chan struct{}), make(chan keyRead, 1)
		go a.reader()
	}
	select {
	case a.ask <- struct{}{}:
	case <-a.ctx.Done():
		return "", a.ctx.Err()
	}
	select {
	case r := <-a.got:
		a.err = r.err
		return r.s, r.err
	case <-a.ctx.Done():
		return "", a.ctx.Err()
	}
}

// reader reads one answer each time next asks, so that no key is taken
// from the terminal that review did not ask for.
func (a *answers) reader() {
	for range a.ask {
		var r keyRead
		if a.keys {
			var k rune
			if k, _, r.err = a.in.ReadRune(); r.err == nil && k == 4 { // Ctrl-D
				r.err = io.EOF
			} else if r.err == nil {
				r.s = string(k)
			}
		} else {
			var line string
			line, r.err = a.in.ReadString('\n')
			if r.s = strings.TrimSpace(line); r.s != "" && errors.Is(r.err, io.EOF) {
				r.err = nil // the last line, without its newline
			}
		}
		a.got <- r
		if r.err != nil {
			return
		}
	}
}

// echo shows the key typed, as a terminal would have, and ends the line.
func (a *answers) echo(s string) {
	if !a.keys {
		return
	}
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool { return !unicode.IsGraphic(r) || unicode.IsSpace(r) }) {
		fmt.Fprint(a.w, s)
	}
	fmt.Fprintln(a.w)
}

// blank reports whether s is a key that answers nothing (Enter, a space),
// which a prompt ignores on a terminal.
func (a *answers) blank(s string) bool {
	return a.keys && strings.TrimSpace(s) == "" && s != ""
}
