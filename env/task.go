package env

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"reflect"
	"slices"
	"strings"
	"unsafe"

	"github.com/agent-oracle/oracle/internal/safeio"
)

// Task is one task file, tasks/<id>.json. Only Instruction reaches the agent.
type Task struct {
	ID          string   `json:"id"`
	Title       string   `json:"title"`
	Instruction string   `json:"instruction"`
	Difficulty  string   `json:"difficulty,omitempty"`
	VerifierID  string   `json:"verifierId"`
	Entities    []string `json:"entities,omitempty"`
	// InitialState is the task's own data for its world, any JSON value,
	// as the file has it: oracle passes it on and never reads it. An
	// environment whose worlds differ by task reads it when it makes the
	// task's state (createState(task), create_state(task), NewState or
	// Seed), e.g. as a patch on its shared data.
	InitialState json.RawMessage `json:"initialState,omitempty"`
	// Variants names the worlds one task file runs in (docs/variants.md):
	// each name is a case of its own, the task with ID <id>@<name> and
	// Variant <name>. LoadTasks expands them; a loaded task has none.
	Variants []string `json:"variants,omitempty"`
	// Variant is the world the environment makes for the task, by a name
	// it knows ("" for its only one): written in the file, or one of its
	// Variants.
	Variant string `json:"variant,omitempty"`
}

// VariantSeparator joins a task's id and its variant's name in the id of
// the variant's case: TASK-003@injected.
const VariantSeparator = "@"

// BaseID is the id of the task file a task comes from: its ID without the
// variant, for a task expanded from Variants.
func (t Task) BaseID() string {
	if t.Variant != "" {
		if base, ok := strings.CutSuffix(t.ID, VariantSeparator+t.Variant); ok {
			return base
		}
	}
	return t.ID
}

// Expand returns the tasks of a task file: the task itself, or one task
// per variant, in the order the file names them.
func (t Task) Expand() []Task {
	if len(t.Variants) == 0 {
		return []Task{t}
	}
	out := make([]Task, len(t.Variants))
	for i, v := range t.Variants {
		out[i] = t
		out[i].ID, out[i].Variant, out[i].Variants = t.ID+VariantSeparator+v, v, nil
	}
	return out
}

// ParseTask reads one task file. Unknown fields and missing required fields
// (id, title, instruction, verifierId) are errors; name is used in messages.
func ParseTask(name string, data []byte) (Task, error) {
	var t Task
	// a plain task file (each key once, spelt exactly, no escape: nearly
	// all of them) is read in one pass; any other goes the strict way,
	// which says what is wrong
	if !taskPlan.decode(data, unsafe.Pointer(&t)) {
		var err error
		if t, err = decodeTaskStrictly(data); err != nil {
			return Task{}, fmt.Errorf("%s: not a valid task file: %w", name, err)
		}
	}
	var missing []string
	for _, f := range []struct{ name, value string }{
		{"id", t.ID}, {"title", t.Title}, {"instruction", t.Instruction}, {"verifierId", t.VerifierID},
	} {
		if strings.TrimSpace(f.value) == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return Task{}, fmt.Errorf("%s: missing required field %s; add it to the task file", name, strings.Join(missing, ", "))
	}
	if err := CheckName(t.ID); err != nil {
		return Task{}, fmt.Errorf("%s: task id: %w", name, err)
	}
	switch t.Difficulty {
	case "", "easy", "medium", "hard":
	default:
		return Task{}, fmt.Errorf("%s: difficulty %q is not easy, medium or hard", name, t.Difficulty)
	}
	if err := checkVariants(t); err != nil {
		return Task{}, fmt.Errorf("%s: %w", name, err)
	}
	return t, nil
}

// checkVariants checks a task's variant names: names of files, none with
// the separator, each once, and not both a variant and variants.
func checkVariants(t Task) error {
	if t.Variant != "" && len(t.Variants) > 0 {
		return errors.New(`both "variant" and "variants"; a task file names one world or a list of them`)
	}
	if strings.Contains(t.ID, VariantSeparator) && (t.Variant != "" || len(t.Variants) > 0) {
		return fmt.Errorf("task id %q holds %q, which joins a task's id and its variant's; rename the task", t.ID, VariantSeparator)
	}
	seen := map[string]bool{}
	names := t.Variants
	if t.Variant != "" {
		names = []string{t.Variant}
	}
	for _, v := range names {
		if err := CheckName(v); err != nil {
			return fmt.Errorf("variant: %w", err)
		}
		if strings.Contains(v, VariantSeparator) {
			return fmt.Errorf("variant %q holds %q; name it without", v, VariantSeparator)
		}
		if seen[v] {
			return fmt.Errorf("variant %s is named twice; name each once", v)
		}
		seen[v] = true
	}
	return nil
}

// decodeTaskStrictly decodes a task file that is not plain: a key given
// twice or spelt in another letter case, an unknown key and a second
// value are errors.
func decodeTaskStrictly(data []byte) (Task, error) {
	var t Task
	if err := checkExactKeys(data, t); err != nil {
		return Task{}, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		return Task{}, err
	}
	if dec.More() {
		return Task{}, errors.New("more than one JSON value")
	}
	return t, nil
}

// taskPlan reads a plain task file (see inputPlan).
var taskPlan = planInput(reflect.TypeFor[Task]())

// LoadTasks reads every tasks/*.json file of fsys, sorted by id, a file
// with variants as one task per variant (see Task.Expand). Duplicate ids
// are an error.
func LoadTasks(fsys fs.FS) ([]Task, error) {
	names, err := fs.Glob(fsys, "tasks/*.json")
	if err != nil {
		return nil, err
	}
	seen := map[string]string{}
	tasks := make([]Task, 0, len(names))
	for _, name := range names {
		data, err := safeio.ReadFS(fsys, name) // a regular file, bounded: a FIFO or /dev/zero is refused
		if pe, ok := errors.AsType[*fs.PathError](err); ok && pe.Path == name {
			err = pe.Err // (named below)
		}
		if err != nil {
			return nil, fmt.Errorf("read task %s: %w", name, err)
		}
		file, err := ParseTask(name, data)
		if err != nil {
			return nil, err
		}
		for _, t := range file.Expand() {
			if prev, ok := seen[t.ID]; ok {
				return nil, fmt.Errorf("%s: duplicate task id %s (also in %s); give each task its own id", name, t.ID, path.Base(prev))
			}
			seen[t.ID] = name
			tasks = append(tasks, t)
		}
	}
	slices.SortFunc(tasks, func(a, b Task) int { return strings.Compare(a.ID, b.ID) })
	return tasks, nil
}

// CheckName reports whether s may be used as an environment, agent, task or
// verifier name, which become file names: not empty, no path separators, no
// "..", no NUL or other control characters.
func CheckName(s string) error {
	switch {
	case s == "":
		return fmt.Errorf("empty name")
	case s == "." || s == "..":
		return fmt.Errorf("%q is not a valid name", s)
	case strings.ContainsAny(s, `/\`):
		return fmt.Errorf("%q must not contain a path separator", s)
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return fmt.Errorf("%q must not contain control characters", s)
		}
	}
	return nil
}
