package command

import (
	"reflect"
	"slices"
	"testing"

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
