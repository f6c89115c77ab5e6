package command

import (
	"testing"

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

func TestRenameProgram(t *testing.T) {
	cmds := []string{"check", "record"}
	tests := []struct{ in, want string }{
		{"run oracle record to freeze it", "run desk-oracle record to freeze it"},
		{"`oracle record --prune` removes it", "`desk-oracle record --prune` removes it"},
		{"oracle check", "desk-oracle check"},
		{"the oracle recorded", "the oracle recorded"},
		{"my-oracle record", "my-oracle record"},
		{"oracle diff A B", "oracle diff A B"},
	}
	for _, tt := range tests {
		if got := renameProgram(tt.in, "desk-oracle", cmds); got != tt.want {
			t.Errorf("renameProgram(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
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
