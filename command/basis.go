package command

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/agent-oracle/oracle/oracle"
	"github.com/urfave/cli/v2"
)

// A check's basis (oracle.Options.Basis) is what its cases ran from, so
// that check --rerun-from takes a case from an earlier report only when
// nothing it ran from changed since: the digest of the commit the CI names
// (commitVars: the project's sources, its environments, agents and
// traces), the oracle binary (its version and the revision it was built
// from), the flags that shape a rollout (every flag given but those that
// only say what to show, where to write, how many at once and what to
// select: the selection is the report's), the values of the variables
// --agent-env passes on, and the agent reference of each case of the
// selection before sharding (so that every shard of one check, and their
// merge, has the check's basis). A check without
// a commit from the CI has no basis: it can show nothing of what changed,
// so no rerun is taken from it or made of it.

// basisFree are the flags of check that shape no rollout.
func (o *checkOptions) basisFree() []string {
	free := []string{dirFlag, noColorFlag}
	for _, field := range []any{
		&o.Format, &o.JSON, &o.ReportDir, &o.Merge, &o.Verbose, &o.MaxCases, &o.Pending, &o.ShowRedacted,
		&o.gate.RerunFrom, &o.cases.Jobs, &o.gate.ModelJobs,
		&o.cases.Env, &o.cases.Agent, &o.cases.Task, &o.cases.Shard, &o.gate.Margin, &o.gate.MaxErrors,
	} {
		free = append(free, o.names[field])
	}
	return free
}

// basis is the basis of the check c makes of a selection, whose cases
// before sharding are whole; "" when no CI commit is known. Every flag
// given counts but those of basisFree.
func (o *checkOptions) basis(c *cli.Context, whole *oracle.Selected) string {
	commit := firstEnv(commitVars...)
	if commit == "" {
		return ""
	}
	h := sha256.New()
	fmt.Fprintf(h, "commit %q\noracle %q %q\n", commit, Version, binaryRevision())
	free := o.basisFree()
	var flags []string
	for _, f := range append(slices.Clone(c.Command.Flags), c.App.Flags...) {
		name := f.Names()[0]
		if c.IsSet(name) && !slices.Contains(free, name) && !slices.Contains(flags, name) {
			flags = append(flags, name)
		}
	}
	slices.Sort(flags)
	for _, name := range flags {
		fmt.Fprintf(h, "flag %q %q\n", name, fmt.Sprint(c.Value(name)))
	}
	for _, v := range o.cases.agents.Env.Value() {
		if name, _, set := strings.Cut(v, "="); !set {
			value, ok := os.LookupEnv(name)
			fmt.Fprintf(h, "agent-env %q %t %q\n", name, ok, value)
		}
	}
	for cs := range whole.Cases.All {
		fmt.Fprintf(h, "case %s %q\n", cs.Key, cs.Reference())
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}
