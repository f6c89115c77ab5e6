package command

import (
	"reflect"
	"slices"
	"testing"

	"github.com/agent-oracle/oracle/env"
	"github.com/urfave/cli/v2"
)

// Every flag of every verb fills a field of the verb's options (its
// Destination), so that none is read by its name; only the common flags,
// read across the command line's levels, have none.
func TestEveryFlagFillsAField(t *testing.T) {
	common := []string{dirFlag, noColorFlag, "help"}
	var walk func(cmds []*cli.Command, path string)
	walk = func(cmds []*cli.Command, path string) {
		for _, cmd := range cmds {
			for _, f := range cmd.Flags {
				name := f.Names()[0]
				if slices.Contains(common, name) {
					continue
				}
				dst := reflect.ValueOf(f).Elem().FieldByName("Destination")
				if !dst.IsValid() || dst.IsNil() {
					t.Errorf("%s %s --%s fills no field of its options", path, cmd.Name, name)
				}
			}
			walk(cmd.Subcommands, path+" "+cmd.Name)
		}
	}
	walk(App(nil).Commands, "oracle")
}

// Every model scheme of env.Schemes has its constructor in modelAgents,
// and modelAgents makes no other.
func TestEveryModelSchemeHasAnAgent(t *testing.T) {
	models := 0
	for _, s := range env.Schemes {
		if !s.Model {
			continue
		}
		models++
		if modelAgents[s] == nil {
			t.Errorf("model scheme %s has no constructor in modelAgents", s.Name)
		}
	}
	if len(modelAgents) != models {
		t.Errorf("modelAgents makes %d agents, env.Schemes has %d model schemes", len(modelAgents), models)
	}
}
