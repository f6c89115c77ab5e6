package oracle

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/env"
)

// TestSelectNeverEmptyByAccident: a literal name that names nothing is a
// coded not-found error listing what exists, and a selection that holds no
// case is an error; an empty shard of a selection is not.
func TestSelectNeverEmptyByAccident(t *testing.T) {
	envs := []env.Environment{newLedger(t, ledgerOpts{tasks: 3})}
	stored := []baseline.Key{{Env: "ledger", Agent: "retired", Task: "TASK-001"}}
	tests := []struct {
		name  string
		sel   Selection
		code  string // the env.Error code, or "" for another error
		want  string // in the error; "" means no error
		cases int
	}{
		{"everything", Selection{}, "", "", 3},
		{"literal task", Selection{Tasks: []string{"TASK-009"}}, env.CodeTaskNotFound, "no task TASK-009 in the environments; tasks: TASK-001, TASK-002, TASK-003", 0},
		{"literal env", Selection{Envs: []string{"nope"}}, env.CodeEnvNotFound, "no environment nope; environments: ledger", 0},
		{"literal agent", Selection{Agents: []string{"nobody"}}, env.CodeAgentNotFound, "no agent nobody in the environments; agents: retired, solver", 0},
		{"exec agent", Selection{Agents: []string{"exec:./a"}}, env.CodeAgentNotFound, "agent exec:./a names no case", 0},
		{"glob", Selection{Tasks: []string{"TSAK-*"}}, "", "no case matches task 'TSAK-*'; tasks: TASK-001, TASK-002, TASK-003", 0},
		{"glob env", Selection{Envs: []string{"x*"}}, "", "no case matches env 'x*'; environments: ledger", 0},
		{"only a baseline", Selection{Agents: []string{"retired"}}, "", "", 0},
		{"empty shard", Selection{Tasks: []string{"TASK-001"}, Shard: emptyShard(t, baseline.Key{Env: "ledger", Agent: "solver", Task: "TASK-001"})}, "", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Select(t.TempDir(), envs, tt.sel, stored)
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if len(got.Cases) != tt.cases {
					t.Errorf("%d cases, want %d", len(got.Cases), tt.cases)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want it to hold %q", err, tt.want)
			}
			var coded *env.Error
			if isCoded := errors.As(err, &coded); tt.code != "" && (!isCoded || coded.Code != tt.code || len(coded.Known) == 0) {
				t.Errorf("error %#v, want code %s with what exists", err, tt.code)
			}
			if tt.code == "" && !errors.Is(err, ErrNothingSelected) {
				t.Errorf("error %v is not ErrNothingSelected", err)
			}
		})
	}
}

// emptyShard returns a shard of 2 that does not hold k.
func emptyShard(t *testing.T, k baseline.Key) Shard {
	for i := 1; i <= 2; i++ {
		if s := (Shard{i, 2}); !s.Has(k) {
			return s
		}
	}
	t.Fatal("no shard misses the key")
	return Shard{}
}

// TestSelectRefusesTwoSources: a replay trace whose folder is a regression
// agent's name makes a key two sources produce.
func TestSelectRefusesTwoSources(t *testing.T) {
	envs := []env.Environment{newLedger(t, ledgerOpts{tasks: 1})}
	dir := t.TempDir()
	trace := filepath.Join(dir, TracesDir, "ledger", "solver", "TASK-001"+TraceLinesSuffix)
	if err := os.MkdirAll(filepath.Dir(trace), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(trace, []byte(`{"type":"run_start","environment":"ledger","task":{"id":"TASK-001"}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Select(dir, envs, Selection{}, nil)
	if err == nil || !strings.Contains(err.Error(), "case ledger/solver/TASK-001 comes from two sources: the regression agent solver of ledger and the trace ") {
		t.Errorf("error %v", err)
	}
	// a stored trace is held to the case its path names
	if err := os.WriteFile(trace, []byte(`{"type":"run_start","environment":"ledger","task":{"id":"TASK-002"}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Select(dir, envs, Selection{}, nil)
	if err == nil || !strings.Contains(err.Error(), "its run_start names ledger/TASK-002, its path ledger/TASK-001; move the trace to the folder of its case or delete it") {
		t.Errorf("error %v", err)
	}
}

// TestCheckProjectDirDescribesTheValue: the library error names the folder,
// never a flag; command adds the flag that gave it.
func TestCheckProjectDirDescribesTheValue(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		dir     string
		missing bool
		want    string
	}{
		{filepath.Join(dir, "nothing"), true, "no project folder " + filepath.Join(dir, "nothing")},
		{file, false, "no project folder " + file + ": not a folder"},
	}
	for _, tt := range tests {
		err := CheckProjectDir(tt.dir)
		e, ok := errors.AsType[*ProjectDirError](err)
		if !ok || !errors.Is(err, ErrNoProject) {
			t.Fatalf("CheckProjectDir(%s) = %v, want a *ProjectDirError matching ErrNoProject", tt.dir, err)
		}
		if e.Missing != tt.missing || err.Error() != tt.want {
			t.Errorf("CheckProjectDir(%s) = %q (missing %v), want %q (missing %v)", tt.dir, err, e.Missing, tt.want, tt.missing)
		}
	}
}
