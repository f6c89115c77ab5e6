package change

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/internal/safeio"
	"github.com/agent-oracle/oracle/runner"
)

// runCasePairs pairs the files of a run folder with those of the case it is
// a run of, when one of a and b is a run folder (it holds result.json) and
// the other a case folder (it holds no result.json, and files named
// <TASK>.result.json, <TASK>.state-diff.json, … as a baseline agent folder
// or a report folder's fresh/ENV/AGENT does): the run's task (the taskId of
// its run.json, or the task of its trace's run_start) picks its files out of
// the case folder, and result.json is compared with TASK.result.json, and
// so on, each shown by the case folder's name of it. The artifacts compared
// are those the case folder holds for the task (an environment may freeze
// only some): one the run lacks is shown as present on one side only.
// trace.jsonl is compared with TASK.trace.jsonl when all is set; run.json
// has no counterpart in a case folder and is not compared.
//
// It returns nil pairs when a and b are not such a pair, and an error when
// the run names no task, or a task the case folder holds nothing of.
func runCasePairs(a, b string, all bool) ([]filePair, error) {
	runA, err := isRunFolder(a)
	if err != nil {
		return nil, err
	}
	runB, err := isRunFolder(b)
	if err != nil {
		return nil, err
	}
	if runA == runB {
		return nil, nil
	}
	run, cases := a, b
	if runB {
		run, cases = b, a
	}
	held, err := caseFolderTasks(cases, all)
	if err != nil || held == nil {
		return nil, err
	}
	task, err := runTask(run)
	if err != nil {
		return nil, err
	}
	files := held[task]
	if len(files) == 0 {
		return nil, fmt.Errorf("diff: %s holds no case %s, the task of the run %s (it holds %s); give the agent folder of the run's case", cases, task, run, taskList(held))
	}
	var pairs []filePair
	for _, name := range caseFiles(all) {
		if !files[name] {
			continue
		}
		p := filePair{name: task + "." + name}
		inRun := filepath.Join(run, name)
		if _, err := os.Lstat(inRun); err == nil {
			p.a = inRun
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("diff: %w", err)
		}
		inCase := filepath.Join(cases, p.name)
		p.b = inCase
		if runB {
			p.a, p.b = p.b, p.a
		}
		pairs = append(pairs, p)
	}
	return pairs, nil
}

// caseFiles are the files of a case in a case folder, in report order,
// each after <TASK>.: the baseline artifacts, and the fresh trace when all
// is set.
func caseFiles(all bool) []string {
	if all {
		return append(slices.Clone(baseline.Files), runner.TraceFile)
	}
	return baseline.Files
}

// isRunFolder reports whether dir holds a result.json of its own.
func isRunFolder(dir string) (bool, error) {
	_, err := os.Lstat(filepath.Join(dir, runner.ResultFile))
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	}
	return false, fmt.Errorf("diff: %w", err)
}

// caseFolderTasks lists the cases dir holds as a case folder: for each
// task, the files of caseFiles(all) it has (<TASK>.<file>). It is nil when
// dir holds none, and so is no case folder.
func caseFolderTasks(dir string, all bool) (map[string]map[string]bool, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("diff: %w", err)
	}
	var held map[string]map[string]bool
	for _, e := range entries {
		for _, name := range caseFiles(all) {
			task, ok := strings.CutSuffix(e.Name(), "."+name)
			if !ok || task == "" || e.IsDir() {
				continue
			}
			if held == nil {
				held = map[string]map[string]bool{}
			}
			if held[task] == nil {
				held[task] = map[string]bool{}
			}
			held[task][name] = true
		}
	}
	return held, nil
}

// taskList names the tasks of a case folder, sorted, the first few only.
func taskList(held map[string]map[string]bool) string {
	tasks := make([]string, 0, len(held))
	for t := range held {
		tasks = append(tasks, t)
	}
	slices.Sort(tasks)
	const shown = 5
	if len(tasks) > shown {
		return strings.Join(tasks[:shown], ", ") + fmt.Sprintf(" and %d more", len(tasks)-shown)
	}
	return strings.Join(tasks, ", ")
}

// runTask is the task a run folder is a run of: the taskId (or task's id)
// of its run.json, or else the task of its trace's run_start. It must be a
// safe file name, since it names files of the case folder.
func runTask(dir string) (string, error) {
	task := ""
	data, err := safeio.ReadFile(filepath.Join(dir, runner.RunFile))
	switch {
	case err == nil:
		var run struct {
			TaskID string `json:"taskId"`
			Task   struct {
				ID string `json:"id"`
			} `json:"task"`
		}
		if err := json.Unmarshal(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), &run); err != nil {
			return "", fmt.Errorf("diff: %s is not a run.json: %v", filepath.Join(dir, runner.RunFile), err)
		}
		task = cmp.Or(run.TaskID, run.Task.ID)
	case !errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("diff: %w", err)
	}
	if task == "" {
		trace := filepath.Join(dir, runner.TraceFile)
		if _, err := os.Lstat(trace); err == nil {
			rec, err := runner.ReadTrace(trace)
			if err != nil {
				return "", fmt.Errorf("diff: %w", err)
			}
			task = rec.Task
		}
	}
	if task == "" {
		return "", fmt.Errorf("diff: the run folder %s names no task (no taskId in a run.json, no run_start in a trace.jsonl); compare its files one by one, e.g. oracle diff %s TASK.result.json", dir, filepath.Join(dir, runner.ResultFile))
	}
	if err := env.CheckName(task); err != nil {
		return "", fmt.Errorf("diff: the task of the run folder %s: %w", dir, err)
	}
	return task, nil
}
