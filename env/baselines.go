package env

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agent-oracle/oracle/internal/artifact"
)

// BaselineArtifacts are the artifacts an environment may freeze as
// baselines, in report order: the names the "baselines" field of
// silo.environment.json takes. Each is frozen as <TASK>.<name>.json, and the
// baseline store's list of files derives from this one list.
//
//   - result: result.json, the verdict, the checks and the answer;
//   - state-diff: state-diff.json, what the rollout changed;
//   - calls: calls.json, every tool call as the agent saw it.
var BaselineArtifacts = artifact.FrozenNames()

// CheckBaselines checks a list of baseline artifacts, from a manifest or a
// command line: at least one, each one of BaselineArtifacts, none twice.
func CheckBaselines(names []string) error {
	known := strings.Join(BaselineArtifacts, ", ")
	if len(names) == 0 {
		return fmt.Errorf("names no artifact; name one or more of %s, or leave it out to freeze all of them", known)
	}
	for i, n := range names {
		if !slices.Contains(BaselineArtifacts, n) {
			return fmt.Errorf("unknown artifact %q; the artifacts are %s", n, known)
		}
		if slices.Contains(names[:i], n) {
			return fmt.Errorf("artifact %q is named twice; name it once", n)
		}
	}
	return nil
}
