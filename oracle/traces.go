package oracle

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/internal/atomicfile"
	"github.com/agent-oracle/oracle/internal/safeio"
	"github.com/agent-oracle/oracle/internal/secret"
	"github.com/agent-oracle/oracle/runner"
)

// Trace file suffixes, by format.
const (
	traceLinesSuffix = "." + runner.TraceFile
	traceArraySuffix = ".trace.json"
)

// traceCases returns the selected replay cases of the project at
// projectDir, one per file under TracesDir, sorted by key. A selected file
// whose environment or task does not exist is an error naming the file.
func traceCases(projectDir string, envs []env.Environment, sel Selection) ([]Case, error) {
	root := filepath.Join(projectDir, TracesDir)
	if err := safeio.CheckChain(projectDir, root); err != nil {
		return nil, fmt.Errorf("replay cases: %w", err)
	}
	var cases []Case
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && path == root {
				return filepath.SkipAll
			}
			return fmt.Errorf("replay cases: %w", err)
		}
		if err := safeio.CheckEntry(path, d.Type()); err != nil {
			return fmt.Errorf("replay cases: %w", err)
		}
		rel, _ := filepath.Rel(root, path)
		parts := strings.Split(filepath.ToSlash(rel), "/")
		if d.IsDir() || len(parts) != 3 {
			return nil
		}
		task, ok := traceTask(parts[2])
		if !ok {
			return nil
		}
		k := baseline.Key{Env: parts[0], Agent: parts[1], Task: task}
		if k.Check() != nil || !sel.Selects(k) {
			return nil
		}
		e, err := env.FindEnv(envs, k.Env)
		if err != nil {
			return fmt.Errorf("replay case %s: %w; delete the trace or add the environment", path, err)
		}
		t, err := env.FindTask(e, k.Task)
		if err != nil {
			return fmt.Errorf("replay case %s: %w; delete the trace or restore the task", path, err)
		}
		// the trace must be of the case its path names, by the rule run
		// and record hold a trace to
		rec, err := runner.ReadTrace(path)
		if err != nil {
			return err
		}
		if _, _, err := rec.Target(path, k.Env, k.Task); err != nil {
			return fmt.Errorf("replay case %s: its run_start names %s/%s, its path %s/%s; move the trace to the folder of its case or delete it",
				path, rec.Environment, rec.Task, k.Env, k.Task)
		}
		cases = append(cases, Case{Key: k, Env: e, Task: t, AgentRef: env.ReplayScheme.Ref(path)})
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(cases, byKey)
	return cases, nil
}

// traceTask returns the task of a trace file's name.
func traceTask(name string) (string, bool) {
	for _, suffix := range []string{traceLinesSuffix, traceArraySuffix} {
		if task, ok := strings.CutSuffix(name, suffix); ok && task != "" {
			return task, true
		}
	}
	return "", false
}

// ImportTrace copies the trace at path into the project at projectDir as a
// replay case and returns its key and the stored file. The environment and
// task are the ones the trace's run_start names, or for a trace without
// run_start (the original runner's) the run.json beside it; envName and
// taskID, when not empty, must agree with them, and they are needed when
// neither names them. A trace without agent_output is stored with the
// agentOutput of the result.json beside it appended as an agent_output
// event that says where it came from (see runner.WithOutput), so the case
// replays with its answer. The case's agent is "replay-" and the file's
// name without its extensions, or for a file called trace.jsonl (a run
// folder's) the folder's name, which is the run id; characters other than
// letters, digits, '.', '_' and '-' become '-'. Importing the same trace
// again changes nothing; a different trace under the same key is an error.
func ImportTrace(projectDir string, envs []env.Environment, path, envName, taskID string) (baseline.Key, string, error) {
	data, err := safeio.ReadFile(path)
	if err != nil {
		return baseline.Key{}, "", fmt.Errorf("replay: %w; give the path of a trace.jsonl, relative to the current folder", err)
	}
	data = secret.Redact(data) // a trace from elsewhere may hold a key this process holds
	rec, err := runner.ParseTrace(path, data)
	if err != nil {
		return baseline.Key{}, "", err
	}
	// the original runner's trace: its task in the run.json beside it, its
	// answer in the result.json, which the stored trace keeps
	if err := rec.ReadBesideRun(path); err != nil {
		return baseline.Key{}, "", err
	}
	if err := rec.ReadBesideOutput(path); err != nil {
		return baseline.Key{}, "", err
	}
	from := filepath.ToSlash(filepath.Join(filepath.Base(filepath.Dir(rec.OutputFrom)), filepath.Base(rec.OutputFrom)))
	if data, err = runner.WithOutput(data, rec, from); err != nil {
		return baseline.Key{}, "", fmt.Errorf("replay %s: %w", path, err)
	}
	var k baseline.Key
	if k.Env, k.Task, err = rec.Target(path, envName, taskID); err != nil {
		return k, "", err
	}
	k.Agent = replayName(path)
	if err := k.Check(); err != nil {
		return k, "", fmt.Errorf("replay %s: %w", path, err)
	}
	e, err := env.FindEnv(envs, k.Env)
	if err != nil {
		return k, "", fmt.Errorf("replay %s: %w; give the trace of a rollout of a built-in environment", path, err)
	}
	if _, err := env.FindTask(e, k.Task); err != nil {
		return k, "", fmt.Errorf("replay %s: %w", path, err)
	}
	suffix := traceLinesSuffix
	if bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n\ufeff"), []byte("[")) {
		suffix = traceArraySuffix
	}
	dir := filepath.Join(projectDir, TracesDir, k.Env, k.Agent)
	dest := filepath.Join(dir, k.Task+suffix)
	if err := safeio.CheckChain(projectDir, dest); err != nil {
		return k, "", fmt.Errorf("replay %s: %w", path, err)
	}
	for _, other := range []string{traceLinesSuffix, traceArraySuffix} {
		existing, err := safeio.ReadNoFollow(filepath.Join(dir, k.Task+other))
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return k, "", fmt.Errorf("replay %s: %w", path, err)
		case other == suffix && bytes.Equal(existing, data):
			return k, dest, nil
		default:
			return k, "", fmt.Errorf("replay %s: a different trace is already the case %s (%s); rename your trace file or delete that one", path, k, filepath.Join(dir, k.Task+other))
		}
	}
	if err := atomicfile.Write(projectDir, dest, data); err != nil {
		return k, "", fmt.Errorf("replay %s: %w", path, err)
	}
	return k, dest, nil
}

// replayName is the agent name of a replay case made from the trace at
// path, as ImportTrace words it.
func replayName(path string) string {
	base := filepath.Base(path)
	for _, ext := range []string{".jsonl", ".json", ".tool-events", ".trace"} {
		base = strings.TrimSuffix(base, ext)
	}
	if base == "trace" || base == "" {
		if parent := filepath.Base(filepath.Dir(path)); parent != "." && parent != string(filepath.Separator) {
			base = parent
		}
	}
	b := []byte(base)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			b[i] = '-'
		}
	}
	return "replay-" + strings.Trim(string(b), ".")
}
