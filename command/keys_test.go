package command

import (
	"bytes"
	"context"
	"flag"
	"strings"
	"testing"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/urfave/cli/v2"
)

// Off a terminal review reads a line for each answer, asks again on one
// that answers nothing known, and quits at the end of the input; a
// regression is confirmed only by y or yes.
func TestAnswersByLineOffATerminal(t *testing.T) {
	var out bytes.Buffer
	typed := newAnswers(context.Background(), strings.NewReader("x\n  A \nyes\nno\n"), &out)
	defer typed.close()
	if typed.keys {
		t.Fatal("a strings.Reader is read by key")
	}
	if got, err := ask(&out, typed); err != nil || got != "A" {
		t.Errorf("ask = %q, %v; want A", got, err)
	}
	if !strings.Contains(out.String(), `"x" is not one of a, r, s, A, q`) {
		t.Errorf("no word about x:\n%s", out.String())
	}
	s := newStyle(cli.NewContext(&cli.App{}, flag.NewFlagSet("", flag.ContinueOnError), nil), &out)
	for _, want := range []bool{true, false, false} { // yes, no, the end
		if ok, err := confirmRegression(&out, s, typed, baseline.Key{}, verdictChange{}); err != nil || ok != want {
			t.Errorf("confirmRegression = %v, %v; want %v", ok, err, want)
		}
	}
	if got, err := ask(&out, typed); err != nil || got != "q" {
		t.Errorf("ask at the end of input = %q, %v; want q", got, err)
	}
}
