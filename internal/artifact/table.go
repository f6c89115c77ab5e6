package artifact

import "strings"

// Diff is how the model of a change (oracle/change) compares two versions
// of an artifact.
type Diff int

const (
	// DiffJSON compares JSON documents path by path (RFC 6902).
	DiffJSON Diff = iota
	// DiffMembers matches a state diff's members by id and their field
	// changes by path.
	DiffMembers
	// DiffCalls aligns the tool calls as a sequence.
	DiffCalls
	// DiffLines compares JSON Lines line by line.
	DiffLines
)

// Artifact is one row of the table of artifacts.
type Artifact struct {
	// Name is the artifact as a manifest's "baselines", --artifacts and a
	// redaction rule name it.
	Name string
	// File is its file name in a run folder; a baseline of a frozen
	// artifact is <TASK>.<File>.
	File string
	// Frozen is whether a byte-for-byte baseline may freeze it: it holds
	// no timestamp and no id of the run.
	Frozen bool
	// Diff is how a change of it is shown.
	Diff Diff
	// About says what it holds.
	About string
}

// All is the table of a rollout's artifacts, in report order: the frozen
// ones first. Every list of artifacts, of their names or of their files
// derives from it.
var All = []Artifact{
	{Name: "result", File: Result, Frozen: true, Diff: DiffJSON, About: "the verdict, the checks and the answer"},
	{Name: "state-diff", File: StateDiff, Frozen: true, Diff: DiffMembers, About: "what the rollout changed in the world"},
	{Name: "calls", File: Calls, Frozen: true, Diff: DiffCalls, About: "every tool call as the agent saw it"},
	{Name: "run", File: Run, Diff: DiffJSON, About: "the run's id, times and configuration"},
	{Name: "trace", File: Trace, Diff: DiffLines, About: "the events of the rollout, one a line"},
}

// Frozen is the artifacts a baseline may freeze, in report order.
func Frozen() []Artifact {
	var out []Artifact
	for _, a := range All {
		if a.Frozen {
			out = append(out, a)
		}
	}
	return out
}

// FrozenNames and FrozenFiles are the names and the files of Frozen.
func FrozenNames() []string { return column(func(a Artifact) string { return a.Name }) }

// FrozenFiles is the files of Frozen, in report order.
func FrozenFiles() []string { return column(func(a Artifact) string { return a.File }) }

func column(of func(Artifact) string) []string {
	var out []string
	for _, a := range Frozen() {
		out = append(out, of(a))
	}
	return out
}

// Named is the artifact of a name ("calls").
func Named(name string) (Artifact, bool) {
	for _, a := range All {
		if a.Name == name {
			return a, true
		}
	}
	return Artifact{}, false
}

// Of is the artifact a file holds: a run folder's file (calls.json) or a
// baseline's (<TASK>.calls.json).
func Of(file string) (Artifact, bool) {
	for _, a := range All {
		if file == a.File || strings.HasSuffix(file, "."+a.File) {
			return a, true
		}
	}
	return Artifact{}, false
}
