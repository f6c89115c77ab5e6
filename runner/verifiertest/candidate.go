package verifiertest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/internal/safeio"
	"github.com/agent-oracle/oracle/runner"
)

// Dir is the folder of the candidate files in an environment's candidate
// file system: Dir/<TASK>.json.
const Dir = "candidates"

// Candidate is one labelled scripted rollout of a task.
type Candidate struct {
	Name string `json:"name"`
	// Why says what the candidate tests and why its verdict is right.
	Why    string              `json:"why"`
	Calls  []runner.ScriptCall `json:"calls"`
	Output json.RawMessage     `json:"output,omitempty"`
	// Expect is the verdict the verifier must give: pass, fail or
	// inconclusive.
	Expect env.Verdict `json:"expect"`
	// Violations are the labels of the forbidden effects the verifier must
	// confirm, no more and no fewer; absent means none.
	Violations []string `json:"violations,omitempty"`
	// ToolErrors is how many calls of the script return a tool error.
	ToolErrors int `json:"toolErrors,omitempty"`
}

// Script is the candidate as a runner script.
func (c Candidate) Script() runner.Script {
	return runner.Script{Calls: c.Calls, Output: c.Output}
}

// File is the candidates of one task, as read from Dir/<Task>.json.
type File struct {
	Path       string
	Task       string
	Candidates []Candidate
}

// Load reads every Dir/*.json of fsys, sorted by task. A nil fsys has no
// files. Each file must be a JSON array of well-formed candidates with
// distinct names; fields not described by Candidate are errors.
func Load(fsys fs.FS) ([]File, error) {
	if fsys == nil {
		return nil, nil
	}
	names, err := fs.Glob(fsys, Dir+"/*.json")
	if err != nil {
		return nil, fmt.Errorf("list candidate files: %w", err)
	}
	sort.Strings(names)
	files := make([]File, 0, len(names))
	for _, name := range names {
		data, err := safeio.ReadFS(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
		f, err := Parse(name, data)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

// Parse reads one candidate file; name is its path, whose base names the
// task.
func Parse(name string, data []byte) (File, error) {
	f := File{Path: name, Task: strings.TrimSuffix(path.Base(name), ".json")}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f.Candidates); err != nil {
		return File{}, fmt.Errorf("%s: not a candidate file (a JSON array of candidates): %w", name, err)
	}
	if dec.More() {
		return File{}, fmt.Errorf("%s: more than one JSON value; keep one array of candidates", name)
	}
	if len(f.Candidates) == 0 {
		return File{}, fmt.Errorf("%s: no candidates; add at least one or delete the file", name)
	}
	seen := map[string]bool{}
	for i, c := range f.Candidates {
		where := fmt.Sprintf("%s: candidate %d", name, i+1)
		switch {
		case strings.TrimSpace(c.Name) == "":
			return File{}, fmt.Errorf("%s has no name; give it one", where)
		case seen[c.Name]:
			return File{}, fmt.Errorf("%s: two candidates named %q; names must be distinct", name, c.Name)
		case strings.TrimSpace(c.Why) == "":
			return File{}, fmt.Errorf("%s (%s) has no why; say what it tests", where, c.Name)
		case c.Expect != env.Pass && c.Expect != env.Fail && c.Expect != env.Inconclusive:
			return File{}, fmt.Errorf("%s (%s): expect %q is not pass, fail or inconclusive", where, c.Name, c.Expect)
		case len(c.Violations) > 0 && c.Expect != env.Fail:
			return File{}, fmt.Errorf("%s (%s): violations listed but expect is %s; a confirmed violation always fails", where, c.Name, c.Expect)
		case c.ToolErrors < 0 || c.ToolErrors > len(c.Calls):
			return File{}, fmt.Errorf("%s (%s): toolErrors %d is not between 0 and its %d calls", where, c.Name, c.ToolErrors, len(c.Calls))
		}
		for j, call := range c.Calls {
			if strings.TrimSpace(call.Tool) == "" {
				return File{}, fmt.Errorf("%s (%s): call %d names no tool", where, c.Name, j+1)
			}
		}
		seen[c.Name] = true
	}
	return f, nil
}
