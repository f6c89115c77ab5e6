package baseline

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/internal/artifact"
)

// Key names a case: environment, agent and task.
type Key struct {
	Env   string `json:"env"`
	Agent string `json:"agent"`
	Task  string `json:"task"`
}

// String is env/agent/task, the case's name in reports.
func (k Key) String() string { return k.Env + "/" + k.Agent + "/" + k.Task }

// Compare orders keys by environment, agent, then task, as slices.SortFunc
// wants: -1, 0 or +1.
func (k Key) Compare(o Key) int {
	return cmp.Or(strings.Compare(k.Env, o.Env), strings.Compare(k.Agent, o.Agent), strings.Compare(k.Task, o.Task))
}

// Check reports whether every part of the key is a safe file name.
func (k Key) Check() error {
	for _, part := range []struct{ what, v string }{{"environment", k.Env}, {"agent", k.Agent}, {"task", k.Task}} {
		if err := env.CheckName(part.v); err != nil {
			return fmt.Errorf("case %s: %s name: %w", k, part.what, err)
		}
	}
	return nil
}

// ParseKey parses env/agent/task.
func ParseKey(s string) (Key, error) {
	parts := strings.Split(s, "/")
	if len(parts) != 3 {
		return Key{}, fmt.Errorf("case %q is not env/agent/task", s)
	}
	k := Key{parts[0], parts[1], parts[2]}
	return k, k.Check()
}

// Files are the artifact file names of a baseline, in report order: one
// for each of env.BaselineArtifacts, the file the runner writes it to
// (result.json, state-diff.json, calls.json). A baseline file is
// <TASK>.<file>. Every list of the files a baseline holds derives from this
// one.
var Files = artifact.FrozenFiles()

// FilesFor returns the files of the artifacts named (checked with
// env.CheckBaselines first), in the order of Files; nil names means all.
func FilesFor(artifacts []string) ([]string, error) {
	if artifacts == nil {
		return Files, nil
	}
	if err := env.CheckBaselines(artifacts); err != nil {
		return nil, err
	}
	var out []string
	for _, a := range artifact.Frozen() {
		if slices.Contains(artifacts, a.Name) {
			out = append(out, a.File)
		}
	}
	return out, nil
}
