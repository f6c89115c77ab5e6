package env

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

type boxState struct {
	Now   string   `json:"now"`
	Items []string `json:"items"`
}

func taskFile(id, verifier string) *fstest.MapFile {
	return &fstest.MapFile{Data: []byte(`{"id":"` + id + `","title":"t","instruction":"i","verifierId":"` + verifier + `"}`)}
}

// boxDefinition is a small environment that passes validation.
func boxDefinition() Definition[boxState] {
	return Definition[boxState]{
		Name:      "box",
		TaskFiles: fstest.MapFS{"tasks/TASK-001.json": taskFile("TASK-001", "VER-001")},
		NewState: func(Task) (*boxState, error) {
			return &boxState{Now: "2026-01-05T09:00:00Z", Items: []string{"a"}}, nil
		},
		Tools: []Tool[boxState]{{Name: "list", InputSchema: `{"type":"object","additionalProperties":false}`,
			Run: func(_ context.Context, s *boxState, _ json.RawMessage) (any, error) { return s.Items, nil }}},
		Verifiers: []Verifier[boxState]{{ID: "VER-001", TaskID: "TASK-001", Name: "listed",
			Check: func(_, _ *boxState, c VerifyContext) []CheckResult {
				return []CheckResult{Check("answered", c.AgentOutput != "", "")}
			}}},
		Agents: map[string]Agent{"solver": AgentFunc(func(context.Context, AgentInput) (any, error) { return "a", nil })},
	}
}

// codes lists a report's findings as "level code".
func codes(r ValidationReport) []string {
	out := []string{}
	for _, f := range r.Findings {
		out = append(out, string(f.Level)+" "+f.Code)
	}
	return out
}

func TestValidateFindsBrokenEnvironments(t *testing.T) {
	var calls atomic.Int64
	tests := []struct {
		name   string
		change func(d *Definition[boxState])
		want   []string
	}{
		{"valid", func(*Definition[boxState]) {}, []string{}},
		{"task names a missing verifier", func(d *Definition[boxState]) {
			d.TaskFiles = fstest.MapFS{"tasks/TASK-001.json": taskFile("TASK-001", "VER-001"), "tasks/TASK-002.json": taskFile("TASK-002", "VER-404")}
		}, []string{"error verifier_not_found"}},
		{"verifier for a missing task", func(d *Definition[boxState]) {
			d.Verifiers = append(d.Verifiers, Verifier[boxState]{ID: "VER-009", TaskID: "TASK-009",
				Check: func(_, _ *boxState, _ VerifyContext) []CheckResult { return NotImplemented("VER-009") }})
		}, []string{"error task_not_found", "warning verifier_unused"}},
		{"schema that does not compile", func(d *Definition[boxState]) {
			d.Tools[0].InputSchema = `{"type":"object","properties":{"n":{"type":"integr"}}}`
		}, []string{"error schema_invalid"}},
		{"nondeterministic NewState", func(d *Definition[boxState]) {
			d.NewState = func(Task) (*boxState, error) {
				return &boxState{Now: clockAt(calls.Add(1)), Items: []string{}}, nil
			}
		}, []string{"error state_nondeterministic"}},
		{"NewState fails", func(d *Definition[boxState]) {
			d.NewState = func(Task) (*boxState, error) { return nil, errors.New("no seed data") }
		}, []string{"error state_invalid"}},
		{"NewState panics", func(d *Definition[boxState]) {
			d.NewState = func(Task) (*boxState, error) { panic("boom") }
		}, []string{"error state_invalid"}},
		{"task file that does not load", func(d *Definition[boxState]) {
			d.TaskFiles = fstest.MapFS{"tasks/TASK-001.json": {Data: []byte(`{"id":"TASK-001"}`)}}
		}, []string{"error task_invalid"}},
		{"no agent", func(d *Definition[boxState]) { d.Agents = nil }, []string{"warning no_regression_agent"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := boxDefinition()
			tt.change(&d)
			e, err := New(d)
			if err != nil {
				t.Fatal(err)
			}
			r := Validate(e, "")
			if diff := cmp.Diff(tt.want, codes(r)); diff != "" {
				t.Errorf("findings (-want +got):\n%s\n%v", diff, r.Findings)
			}
			wantOK := !strings.Contains(strings.Join(tt.want, ","), "error")
			if r.OK != wantOK {
				t.Errorf("OK = %v, want %v", r.OK, wantOK)
			}
			for _, f := range r.Findings {
				if strings.Contains(f.Message, "\n") || !strings.Contains(f.Message, ";") {
					t.Errorf("finding %q is not one line naming a fix", f.Message)
				}
			}
		})
	}
}

func clockAt(n int64) string { return "2026-01-05T09:00:0" + string(rune('0'+n%10)) + "Z" }

func TestValidateStateNotAnObject(t *testing.T) {
	e, err := New(Definition[[]string]{
		Name:      "list",
		TaskFiles: fstest.MapFS{"tasks/TASK-001.json": taskFile("TASK-001", "VER-001")},
		NewState:  func(Task) (*[]string, error) { return &[]string{"a"}, nil },
		Verifiers: []Verifier[[]string]{{ID: "VER-001", TaskID: "TASK-001",
			Check: func(_, _ *[]string, _ VerifyContext) []CheckResult { return NotImplemented("VER-001") }}},
	})
	if err != nil {
		t.Fatal(err)
	}
	r := Validate(e, "")
	if diff := cmp.Diff([]string{"error state_invalid", "warning no_regression_agent"}, codes(r)); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
	if msg := r.Findings[0].Message; !strings.Contains(msg, "not a JSON object") {
		t.Errorf("message %q does not say the state is not an object", msg)
	}
}

// missingAgent claims a regression agent it does not have, which New
// refuses but another implementation of Environment might do.
type missingAgent struct{ Environment }

func (missingAgent) RegressionAgents() []string { return []string{"ghost"} }

func TestValidateRegressionAgentExists(t *testing.T) {
	e, err := New(boxDefinition())
	if err != nil {
		t.Fatal(err)
	}
	r := Validate(missingAgent{e}, "")
	if diff := cmp.Diff([]string{"error agent_not_found"}, codes(r)); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
	if want := (Counts{Agents: 1, Tasks: 1, Tools: 1, Verifiers: 1}); r.Counts != want {
		t.Errorf("counts = %+v, want %+v", r.Counts, want)
	}
}

func TestValidateManifest(t *testing.T) {
	e, err := New(boxDefinition())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"no manifest", nil, []string{}},
		{"manifest and tasks as built", map[string]string{
			".silo/environments/box/silo.environment.json": `{"name":"box","entrypoint":"envs/box"}`,
			"envs/box/tasks/TASK-001.json":                 string(taskFile("TASK-001", "VER-001").Data),
		}, []string{}},
		{"name does not match", map[string]string{
			".silo/environments/box/silo.environment.json": `{"name":"crate","entrypoint":"envs/box"}`,
		}, []string{"error manifest_invalid"}},
		{"not a manifest", map[string]string{
			".silo/environments/box/silo.environment.json": `{"name":"box","entrypoint":"../box"}`,
		}, []string{"error manifest_invalid"}},
		{"entrypoint missing", map[string]string{
			".silo/environments/box/silo.environment.json": `{"name":"box","entrypoint":"envs/gone"}`,
		}, []string{"error manifest_invalid"}},
		{"a task added on disk", map[string]string{
			".silo/environments/box/silo.environment.json": `{"name":"box","entrypoint":"envs/box"}`,
			"envs/box/tasks/TASK-001.json":                 string(taskFile("TASK-001", "VER-001").Data),
			"envs/box/tasks/TASK-002.json":                 string(taskFile("TASK-002", "VER-002").Data),
		}, []string{"warning tasks_stale"}},
		{"a broken task on disk", map[string]string{
			".silo/environments/box/silo.environment.json": `{"name":"box","entrypoint":"envs/box"}`,
			"envs/box/tasks/TASK-001.json":                 `{}`,
		}, []string{"error task_invalid"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range tt.files {
				p := filepath.Join(dir, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			r := Validate(e, dir)
			if diff := cmp.Diff(tt.want, codes(r)); diff != "" {
				t.Errorf("findings (-want +got):\n%s\n%v", diff, r.Findings)
			}
		})
	}
}
