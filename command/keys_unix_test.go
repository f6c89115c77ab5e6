//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package command

import (
	"bytes"
	"context"
	"testing"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// On a terminal an answer is one key, read without Enter while the
// terminal is in cbreak mode, and closing the answers restores the
// terminal's line mode.
func TestAnswersByKeyOnATerminal(t *testing.T) {
	ptm, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptm.Close()
	defer tty.Close()
	canonical := func() bool {
		attrs, err := unix.IoctlGetTermios(int(tty.Fd()), getTermios)
		if err != nil {
			t.Fatal(err)
		}
		return attrs.Lflag&unix.ICANON != 0
	}
	if !canonical() {
		t.Fatal("a new terminal is not in line mode")
	}
	var out bytes.Buffer
	typed := newAnswers(context.Background(), tty, &out)
	if !typed.keys || canonical() {
		t.Fatalf("answers on a terminal: by key %v, line mode %v", typed.keys, canonical())
	}
	if _, err := ptm.WriteString("r"); err != nil {
		t.Fatal(err)
	}
	if got, err := ask(&out, typed); err != nil || got != "r" {
		t.Errorf("ask = %q, %v; want r, without Enter", got, err)
	}
	typed.close()
	if !canonical() {
		t.Error("the terminal was left in cbreak mode")
	}
}
