//go:build unix

package timeline

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agent-oracle/oracle/internal/safeio"
)

// TestLocate finds a rollout by each name it may be given, and refuses
// what is not one, a symlink on the way to it or among its files, a FIFO
// (without waiting on it) and a file that is not what its name says, each
// with an error naming it.
func TestLocate(t *testing.T) {
	root := t.TempDir()
	mk := func(path, data string) string {
		p := filepath.Join(root, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	link := func(path, to string) string {
		p := filepath.Join(root, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(to, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const result = `{"passed":true,"verdict":"pass","reward":1,"checks":[]}`
	run := filepath.Dir(mk("p/.silo/runs/run_1/result.json", result))
	mk("p/.silo/runs/run_1/calls.json", `[]`)
	report := filepath.Join(root, "report")
	mk("report/report.json", `{}`)
	kase := strings.TrimSuffix(mk("report/fresh/crm/solver/TASK-002.result.json", result), ".result.json")
	mk("report/fresh/crm/solver/TASK-002.calls.json", `[]`)
	store := filepath.Join(root, "p", ".silo", "baselines")
	mk("p/.silo/baselines/crm/solver/TASK-004.result.json", result)
	empty := filepath.Join(root, "empty")
	os.MkdirAll(empty, 0o755)
	secret := mk("secret.json", result)
	linkedRun := link("p/.silo/runs/run_2", run)
	linkedFileRun := filepath.Dir(mk("runs/run_3/calls.json", `[]`))
	link("runs/run_3/result.json", secret)
	fifoRun := filepath.Dir(mk("runs/run_4/calls.json", `[]`))
	if err := syscall.Mkfifo(filepath.Join(fifoRun, "trace.jsonl"), 0o644); err != nil {
		t.Fatal(err)
	}
	elsewhere := filepath.Dir(mk("elsewhere/TASK-009.result.json", result))
	link("report2/fresh/crm/solver", elsewhere)
	mk("report2/report.json", `{}`)
	os.MkdirAll(filepath.Join(root, "outside-runs", "run_5"), 0o755)
	mk("outside-runs/run_5/result.json", result)
	link("q/.silo/runs", filepath.Join(root, "outside-runs"))
	notResult := filepath.Dir(mk("runs/run_6/result.json", `{"reward":"high"}`))
	deep := filepath.Dir(mk("runs/run_7/calls.json", strings.Repeat("[", safeio.MaxDepth+1)+strings.Repeat("]", safeio.MaxDepth+1)))
	other := mk("runs/notes.txt", "hello")

	tests := []struct {
		name    string
		locate  func() (*Source, error)
		path    string // the source's path
		kase    string // its case key
		files   int    // the files found
		wantErr string // in the error of Locate or Load
	}{
		{"a run folder", func() (*Source, error) { return Locate(run, "") }, run, "", 2, ""},
		{"a file of a run folder", func() (*Source, error) { return Locate(filepath.Join(run, "calls.json"), "") }, run, "", 2, ""},
		{"a run id", func() (*Source, error) { return Locate("run_1", filepath.Join(root, "p", ".silo", "runs")) }, filepath.Join(root, "p", ".silo", "runs", "run_1"), "", 2, ""},
		{"a case of a report folder", func() (*Source, error) { return Locate(kase, "") }, kase, "crm/solver/TASK-002", 2, ""},
		{"a case's file", func() (*Source, error) { return Locate(kase+".calls.json", "") }, kase, "crm/solver/TASK-002", 2, ""},
		{"a report folder and a key", func() (*Source, error) { return LocateCase(report, "crm/solver/TASK-002") }, kase, "crm/solver/TASK-002", 2, ""},
		{"a store and a key", func() (*Source, error) { return LocateCase(store, "crm/solver/TASK-004") }, filepath.Join(store, "crm", "solver", "TASK-004"), "crm/solver/TASK-004", 1, ""},
		{"nothing there", func() (*Source, error) { return Locate(filepath.Join(root, "nope"), "") }, "", "", 0, "nope: no such run folder or case; give a run folder"},
		{"a run id that is not there", func() (*Source, error) { return Locate("run_9", filepath.Join(root, "p", ".silo", "runs")) }, "", "", 0, "run_9: no such run folder or case"},
		{"a folder that holds no run", func() (*Source, error) { return Locate(empty, "") }, "", "", 0, "empty holds no run: none of run.json, result.json, calls.json, state-diff.json, trace.jsonl is there"},
		{"a case's folder", func() (*Source, error) { return Locate(filepath.Dir(kase), "") }, "", "", 0, "solver holds the files of cases, not a run; name one: " + kase},
		{"a report folder itself", func() (*Source, error) { return Locate(report, "") }, "", "", 0, "report is a report folder; name one of its cases"},
		{"a case the report lacks", func() (*Source, error) { return LocateCase(report, "crm/solver/TASK-003") }, "", "", 0, "has no case crm/solver/TASK-003"},
		{"a key that is not one", func() (*Source, error) { return LocateCase(report, "crm/TASK-003") }, "", "", 0, `case "crm/TASK-003" is not env/agent/task; name the case as ENV/AGENT/TASK`},
		{"a key that climbs out", func() (*Source, error) { return LocateCase(report, "../solver/TASK-003") }, "", "", 0, "environment name"},
		{"a FIFO named", func() (*Source, error) { return Locate(filepath.Join(fifoRun, "trace.jsonl"), "") }, "", "", 0, "run_4/trace.jsonl: is not a regular file (it is a FIFO)"},
		{"a file that is not an artifact", func() (*Source, error) { return Locate(other, "") }, "", "", 0, "notes.txt is a file that is not an artifact"},
		{"a symlinked run folder", func() (*Source, error) { return Locate(linkedRun, "") }, "", "", 0, "run_2 is a symlink; oracle view follows no link"},
		{"a symlinked artifact", func() (*Source, error) { return Locate(linkedFileRun, "") }, "", "", 0, "run_3/result.json is a symlink; oracle view reads nothing through a link"},
		{"a FIFO among the files", func() (*Source, error) { return Locate(fifoRun, "") }, "", "", 0, "run_4/trace.jsonl: is not a regular file (it is a FIFO)"},
		{"a symlinked folder of a case", func() (*Source, error) {
			return LocateCase(filepath.Join(root, "report2"), "crm/solver/TASK-009")
		}, "", "", 0, "report2/fresh/crm/solver is a symlink"},
		{"a symlinked folder of a case named by its path", func() (*Source, error) {
			return Locate(filepath.Join(root, "report2", "fresh", "crm", "solver", "TASK-009"), "")
		}, "", "", 0, "report2/fresh/crm/solver is a symlink"},
		{"a symlinked .silo/runs", func() (*Source, error) { return Locate(filepath.Join(root, "q", ".silo", "runs", "run_5"), "") }, "", "", 0, "q/.silo/runs is a symlink"},
		{"a result.json that is not a result", func() (*Source, error) { return Locate(notResult, "") }, "", "", 0, "run_6/result.json: not a result: json: cannot unmarshal string"},
		{"an artifact nested too deep", func() (*Source, error) { return Locate(deep, "") }, "", "", 0, "run_7/calls.json is nested too deep"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, err := tt.locate()
			if err == nil {
				_, err = Load(src)
			}
			switch {
			case tt.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one with %q", err, tt.wantErr)
				}
				if strings.Contains(err.Error(), "\n") {
					t.Errorf("the error is more than one line: %q", err)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			if src.Path != tt.path || src.Case != tt.kase || len(src.Paths) != tt.files {
				t.Errorf("found %s (case %q, %d files), want %s (case %q, %d files)", src.Path, src.Case, len(src.Paths), tt.path, tt.kase, tt.files)
			}
		})
	}
	if data, _ := os.ReadFile(secret); string(data) != result {
		t.Error("the symlinked file's target changed")
	}
}
