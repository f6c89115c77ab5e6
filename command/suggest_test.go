package command

import (
	"errors"
	"testing"

	"github.com/agent-oracle/oracle/env"
	"github.com/urfave/cli/v2"
)

func TestNearestName(t *testing.T) {
	names := []string{"crm", "calendar", "TASK-001", "TASK-002", "solver", "helpdesk"}
	for in, want := range map[string]string{
		"crn": "crm", "calender": "calendar", "task-001": "TASK-001", "TSAK-002": "TASK-002",
		"solvr": "solver", "help": "helpdesk", "hlepdesk": "helpdesk",
		// digits are another name, never a typo of one
		"TASK-008": "", "TASK-01": "", "TASK-0001": "",
		"x": "", "billing": "", "": "",
	} {
		if got := nearestName(in, names); got != want {
			t.Errorf("nearestName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFindFlagMistake(t *testing.T) {
	flags := []cli.Flag{
		&cli.DurationFlag{Name: "timeout"},
		&cli.IntFlag{Name: "jobs", Aliases: []string{"j"}},
		&cli.Float64Flag{Name: "model-temperature"},
		&cli.BoolFlag{Name: "json"},
		&cli.StringSliceFlag{Name: "env", Aliases: []string{"e"}},
		&cli.StringFlag{Name: "dir", Aliases: []string{"C"}},
	}
	for _, tt := range []struct {
		args      []string
		msg, near string
	}{
		{[]string{"--timeout", "5"}, `--timeout "5": want a duration such as 30s`, ""},
		{[]string{"--timeout=5"}, `--timeout "5": want a duration such as 30s`, ""},
		{[]string{"-timeout", "soon"}, `-timeout "soon": want a duration such as 30s`, ""},
		{[]string{"-e", "crm", "-j", "x"}, `-j "x": want a whole number such as 4`, ""},
		{[]string{"--model-temperature", "hot"}, `--model-temperature "hot": want a number such as 0.5`, ""},
		{[]string{"--json=maybe"}, `--json "maybe": want true or false`, ""},
		{[]string{"--env", "crm", "--timout", "5s"}, "flag provided but not defined: -timout", "timeout"},
		{[]string{"--frob"}, "flag provided but not defined: -frob", ""},
		{[]string{"--\x1b[2Jx"}, `flag provided but not defined: "-\x1b[2Jx"`, ""},
		{[]string{"--jsno"}, "flag provided but not defined: -jsno", "json"},
		{[]string{"--timeout"}, "--timeout needs a value; want a duration such as 30s", ""},
		{[]string{"--env"}, "--env needs a value", ""},
		// the value of a flag is not a flag; the arguments end the flags
		{[]string{"--dir", "--frob"}, "", ""},
		{[]string{"--json", "TASK-001", "--frob"}, "", ""},
		{[]string{"--", "--frob"}, "", ""},
		{[]string{"--timeout", "30s", "-j", "2", "--json"}, "", ""},
	} {
		m := findFlagMistake(flags, tt.args)
		var msg, near string
		if m != nil {
			msg, near = m.msg, m.near
		}
		if msg != tt.msg || near != tt.near {
			t.Errorf("findFlagMistake(%q) = %q, near %q; want %q, near %q", tt.args, msg, near, tt.msg, tt.near)
		}
	}
}

// A not-found error about a name given with a flag gets the nearest name
// that exists; any other error, and one with no near name, is as it was.
func TestWithNearest(t *testing.T) {
	notFound := func(code string, known ...string) error {
		return &env.Error{Code: code, Message: "no such name", Known: known}
	}
	for _, tt := range []struct {
		args []string
		err  error
		want string
	}{
		{[]string{"--env", "crn"}, notFound(env.CodeEnvNotFound, "crm", "calendar"), "env_not_found: no such name; did you mean crm?"},
		{[]string{"--env", "crm", "--env", "calender"}, notFound(env.CodeEnvNotFound, "crm", "calendar"), "env_not_found: no such name; did you mean calendar?"},
		{[]string{"--task", "task-002"}, notFound(env.CodeTaskNotFound, "TASK-001", "TASK-002"), "task_not_found: no such name; did you mean TASK-002?"},
		{[]string{"--agent", "solvr"}, notFound(env.CodeAgentNotFound, "solver"), "agent_not_found: no such name; did you mean solver?"},
		{[]string{"--task", "TASK-009"}, notFound(env.CodeTaskNotFound, "TASK-001"), "task_not_found: no such name"},
		{[]string{"--env", "cr*"}, notFound(env.CodeEnvNotFound, "crm"), "env_not_found: no such name"},
		{[]string{"--env", "crn"}, notFound(env.CodeTaskNotFound, "crm"), "task_not_found: no such name"},
		{[]string{"--env", "crn"}, errors.New("env_not_found: text"), "env_not_found: text"},
	} {
		var got error
		app := &cli.App{
			Flags: []cli.Flag{&cli.StringSliceFlag{Name: "env"}, &cli.StringFlag{Name: "task"}, &cli.StringFlag{Name: "agent"}},
			Action: func(c *cli.Context) error {
				got = withNearest(c, tt.err)
				return nil
			},
		}
		if err := app.Run(append([]string{"oracle"}, tt.args...)); err != nil {
			t.Fatal(err)
		}
		if got.Error() != tt.want {
			t.Errorf("%q: %q, want %q", tt.args, got, tt.want)
		}
		if coded, ok := errors.AsType[*env.Error](got); ok && errorCode(got) != coded.Code {
			t.Errorf("%q: the code is lost", tt.args)
		}
	}
}
