package command

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agent-oracle/oracle/fixtures"

	"github.com/urfave/cli/v2"
)

func TestNearest(t *testing.T) {
	cmds := []*cli.Command{{Name: "check"}, {Name: "record"}, {Name: "run"}, {Name: "verifier"}, {Name: "help", Aliases: []string{"h"}}}
	tests := map[string]string{
		"chek": "check", "recrod": "record", "rnu": "run", "verif": "verifier", "chekc": "check",
		"xyz": "", "r": "run", "deploy": "", "zzzzzz": "",
	}
	for in, want := range tests {
		if got := nearest(in, cmds); got != want {
			t.Errorf("nearest(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestRenamedBinaryNamesItself: a binary named with WithName names its own
// commands, never oracle's, in the help of every command and in the
// messages that suggest a command.
func TestRenamedBinaryNamesItself(t *testing.T) {
	const name = "desk-oracle"
	app := App(nil, WithName(name))
	oracleCommand := regexp.MustCompile(`(^|[^-\w])oracle (` + strings.Join(commandList(app.Commands), "|") + `)\b`)
	run := func(args ...string) string {
		var out, errOut bytes.Buffer
		Run(context.Background(), append([]string{name}, args...), fixtures.All, &out, &errOut, WithName(name))
		return out.String() + errOut.String()
	}
	var walk func(cmds []*cli.Command, path []string)
	walk = func(cmds []*cli.Command, path []string) {
		for _, cmd := range cmds {
			p := append(slices.Clone(path), cmd.Name)
			if help := run(append([]string{"help"}, p...)...); oracleCommand.MatchString(help) {
				t.Errorf("help %s names oracle's commands:\n%s", strings.Join(p, " "), help)
			}
			walk(cmd.Subcommands, p)
		}
	}
	walk(app.Commands, nil)
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing")
	project := filepath.Join(dir, "project")
	if err := os.MkdirAll(filepath.Join(project, ".silo"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"check", "-C", missing}, "make one with desk-oracle init"},
		{[]string{"check", "-C", project, "--agent", "replay:x.jsonl"}, "make one with desk-oracle record --agent replay:PATH"},
		{[]string{"accept", "-C", project, "--from", missing}, "give the folder of desk-oracle check --report-dir"},
		{[]string{"tool", "add", "-C", project, "--env", "crm", "lookup"}, "run desk-oracle init crm"},
		{[]string{"completion", "bash"}, "_desk_oracle_complete"},
	} {
		got := run(tt.args...)
		if !strings.Contains(got, tt.want) || oracleCommand.MatchString(got) {
			t.Errorf("%s: got %q, want %q and no command of oracle's", strings.Join(tt.args, " "), got, tt.want)
		}
	}
}

// commandList is the names of cmds.
func commandList(cmds []*cli.Command) []string {
	var names []string
	for _, cmd := range cmds {
		names = append(names, cmd.Names()...)
	}
	return names
}

func TestWantsJSON(t *testing.T) {
	tests := []struct {
		args []string
		want bool
	}{
		{[]string{"oracle", "list", "--json"}, true},
		{[]string{"oracle", "check", "--format", "json"}, true},
		{[]string{"oracle", "check", "-f=json"}, true},
		{[]string{"oracle", "check", "--json=false"}, false},
		{[]string{"oracle", "check", "--format", "text"}, false},
		{[]string{"oracle", "task", "add", "--", "--json"}, false},
		{[]string{"oracle", "check"}, false},
	}
	for _, tt := range tests {
		if got := wantsJSON(tt.args); got != tt.want {
			t.Errorf("wantsJSON(%q) = %v, want %v", tt.args, got, tt.want)
		}
	}
}
