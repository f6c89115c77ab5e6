package oracle

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/oracle/report"
	"github.com/google/go-cmp/cmp"
)

// tinyEnv is an environment called name with the tasks and agents given,
// every agent a regression agent that answers "ok".
func tinyEnv(t *testing.T, name string, tasks []string, agents ...string) env.Environment {
	t.Helper()
	files := fstest.MapFS{}
	var verifiers []env.Verifier[struct{}]
	for _, id := range tasks {
		files["tasks/"+id+".json"] = &fstest.MapFile{Data: []byte(fmt.Sprintf(`{"id":%q,"title":"t","instruction":"do it","verifierId":"V-%s"}`, id, id))}
		verifiers = append(verifiers, env.Verifier[struct{}]{ID: "V-" + id, TaskID: id, Name: "v",
			Check: func(_, _ *struct{}, _ env.VerifyContext) []env.CheckResult {
				return []env.CheckResult{env.Check("ok", true, "")}
			}})
	}
	if len(tasks) == 0 {
		files["tasks/README"] = &fstest.MapFile{Data: []byte("no task")}
	}
	am := map[string]env.Agent{}
	for _, a := range agents {
		am[a] = env.AgentFunc(func(context.Context, env.AgentInput) (any, error) { return "ok", nil })
	}
	e, err := env.New(env.Definition[struct{}]{
		Name: name, TaskFiles: files, Verifiers: verifiers, Agents: am,
		NewState: func(env.Task) (*struct{}, error) { return &struct{}{}, nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestSelectLiterals pins the check of literal names in each of its
// branches: several names of a flag of which any one names nothing, a name
// that exists in another environment than those selected, a name only a
// trace or a stored baseline has, and names next to globs.
func TestSelectLiterals(t *testing.T) {
	shop := tinyEnv(t, "shop", []string{"S-1", "S-2"}, "clerk", "solver")
	bank := tinyEnv(t, "bank", []string{"B-1"}, "teller")
	empty := tinyEnv(t, "void", nil, "ghost")
	envs := []env.Environment{bank, shop, empty}
	dir := t.TempDir()
	// a replay case of bank: agent replay-x, task B-1
	trace := filepath.Join(dir, TracesDir, "bank", "replay-x", "B-1"+traceLinesSuffix)
	if err := os.MkdirAll(filepath.Dir(trace), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(trace, []byte(`{"type":"run_start","environment":"bank","task":{"id":"B-1"}}`+"\n"+`{"type":"agent_output","output":"ok"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stored := []baseline.Key{{Env: "gone", Agent: "old", Task: "G-1"}, {Env: "shop", Agent: "retired", Task: "S-9"}}
	tests := []struct {
		name   string
		sel    Selection
		code   string // "" when the selection is fine
		want   string
		cases  int
		listed bool // the stored baselines were listed
	}{
		{"no names", Selection{}, "", "", 6, false},
		{"globs only", Selection{Envs: []string{"s*"}, Tasks: []string{"S-?"}}, "", "", 4, false},
		{"names that exist", Selection{Envs: []string{"shop", "bank"}, Agents: []string{"clerk", "teller"}, Tasks: []string{"S-2", "B-1"}}, "", "", 2, false},
		{"the first env names nothing", Selection{Envs: []string{"nope", "shop"}}, env.CodeEnvNotFound, "no environment nope; environments: bank, shop, void", 0, true},
		{"the last env names nothing", Selection{Envs: []string{"shop", "bank", "nope"}}, env.CodeEnvNotFound, "no environment nope;", 0, true},
		{"an env a glob would match is still a name", Selection{Envs: []string{"s*", "sho"}}, env.CodeEnvNotFound, "no environment sho;", 0, true},
		{"an env only a baseline has", Selection{Envs: []string{"gone"}}, "", "", 0, true},
		{"the first agent names nothing", Selection{Agents: []string{"nobody", "clerk"}}, env.CodeAgentNotFound, "no agent nobody in the environments; agents: clerk, old, replay-x, retired, solver, teller", 0, true},
		{"the last agent names nothing", Selection{Agents: []string{"clerk", "teller", "nobody"}}, env.CodeAgentNotFound, "no agent nobody in the environments;", 0, true},
		{"an agent of another environment", Selection{Envs: []string{"bank"}, Agents: []string{"clerk"}}, env.CodeAgentNotFound, "no agent clerk in bank; agents: replay-x, teller", 0, true},
		{"an agent of an environment without tasks", Selection{Agents: []string{"ghost"}}, env.CodeAgentNotFound, "no agent ghost in the environments;", 0, true},
		{"an agent only a trace has", Selection{Agents: []string{"replay-x"}}, "", "", 1, false},
		{"a trace's agent outside the envs selected", Selection{Envs: []string{"shop"}, Agents: []string{"replay-x"}}, env.CodeAgentNotFound, "no agent replay-x in shop; agents: clerk, retired, solver", 0, true},
		{"an agent only a baseline has", Selection{Envs: []string{"shop"}, Agents: []string{"retired"}}, "", "", 0, true},
		{"an exec agent", Selection{Agents: []string{"clerk", "exec:./a *"}}, env.CodeAgentNotFound, "agent exec:./a * names no case", 0, true},
		{"the first task names nothing", Selection{Tasks: []string{"S-7", "S-1"}}, env.CodeTaskNotFound, "no task S-7 in the environments; tasks: B-1, G-1, S-1, S-2, S-9", 0, true},
		{"the middle task names nothing", Selection{Tasks: []string{"S-1", "S-7", "B-1"}}, env.CodeTaskNotFound, "no task S-7 in the environments;", 0, true},
		{"a task of another environment", Selection{Envs: []string{"shop", "void"}, Tasks: []string{"B-1"}}, env.CodeTaskNotFound, "no task B-1 in shop, void; tasks: S-1, S-2, S-9", 0, true},
		{"a task only a baseline has", Selection{Envs: []string{"shop"}, Tasks: []string{"S-9"}}, "", "", 0, true},
		{"a glob task and a name that names nothing", Selection{Tasks: []string{"S-*", "X-1"}}, env.CodeTaskNotFound, "no task X-1 in", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			listed := false
			got, err := Select(dir, envs, tt.sel, func() ([]baseline.Key, error) {
				listed = true
				return stored, nil
			})
			if listed != tt.listed {
				t.Errorf("baselines listed %v, want %v", listed, tt.listed)
			}
			if tt.code == "" {
				if err != nil {
					t.Fatal(err)
				}
				if n := len(keysOf(got.Cases)); n != tt.cases || got.Total != tt.cases {
					t.Errorf("%d cases made, Total %d, want %d", n, got.Total, tt.cases)
				}
				return
			}
			coded, ok := errors.AsType[*env.Error](err)
			if !ok || coded.Code != tt.code || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %s holding %q", err, tt.code, tt.want)
			}
		})
	}
}

// TestSelectNothing: a selection that holds no case says what its patterns
// could have matched: every environment, the agents of those selected,
// the tasks of the agents selected.
func TestSelectNothing(t *testing.T) {
	shop := tinyEnv(t, "shop", []string{"S-1", "S-2"}, "clerk", "solver")
	bank := tinyEnv(t, "bank", []string{"B-1"}, "teller")
	envs := []env.Environment{shop, bank}
	tests := []struct {
		sel  Selection
		want string
	}{
		{Selection{Envs: []string{"x*"}}, "no case matches env 'x*'; environments: bank, shop"},
		{Selection{Envs: []string{"s*"}, Agents: []string{"t*"}}, "no case matches env 's*' agent 't*'; environments: bank, shop; agents: clerk, solver"},
		{Selection{Agents: []string{"c*"}, Tasks: []string{"B-?"}}, "no case matches agent 'c*' task 'B-?'; agents: clerk, solver, teller; tasks: S-1, S-2"},
		{Selection{Envs: []string{"shop"}, Tasks: []string{"Z*"}}, "no case matches env shop task 'Z*'; environments: bank, shop; tasks: S-1, S-2"},
	}
	for _, tt := range tests {
		_, err := Select(t.TempDir(), envs, tt.sel, storedKeys())
		if err == nil || err.Error() != tt.want || !errors.Is(err, ErrNothingSelected) {
			t.Errorf("%+v: error %v, want %q", tt.sel, err, tt.want)
		}
	}
	// the agents and tasks of replay cases are among what could have matched
	dir := t.TempDir()
	trace := filepath.Join(dir, TracesDir, "bank", "replay-y", "B-1"+traceLinesSuffix)
	if err := os.MkdirAll(filepath.Dir(trace), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(trace, []byte(`{"type":"run_start","environment":"bank","task":{"id":"B-1"}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		sel  Selection
		want string
	}{
		{Selection{Agents: []string{"r*"}, Tasks: []string{"Q*"}}, "no case matches agent 'r*' task 'Q*'; agents: clerk, replay-y, solver, teller; tasks: B-1"},
		{Selection{Envs: []string{"shop"}, Agents: []string{"r*"}}, "no case matches env shop agent 'r*'; environments: bank, shop; agents: clerk, solver"},
	} {
		_, err := Select(dir, envs, tt.sel, storedKeys())
		if err == nil || err.Error() != tt.want {
			t.Errorf("with a trace, %+v: error %v, want %q", tt.sel, err, tt.want)
		}
	}
	// the tasks listed are those of the agents selected, a trace's too
	vault := tinyEnv(t, "vault", []string{"V-1", "V-2"})
	vdir := t.TempDir()
	for agent, task := range map[string]string{"replay-p": "V-1", "replay-q": "V-2"} {
		p := filepath.Join(vdir, TracesDir, "vault", agent, task+traceLinesSuffix)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(`{"type":"run_start","environment":"vault","task":{"id":"`+task+`"}}`+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := Select(vdir, []env.Environment{vault}, Selection{Agents: []string{"replay-p"}, Tasks: []string{"Q*"}}, storedKeys())
	if want := "no case matches agent replay-p task 'Q*'; agents: replay-p, replay-q; tasks: V-1"; err == nil || err.Error() != want {
		t.Errorf("traces only: error %v, want %q", err, want)
	}
	// no case at all: no regression agent, no trace
	none := tinyEnv(t, "none", []string{"N-1"})
	_, err = Select(t.TempDir(), []env.Environment{none}, Selection{}, storedKeys())
	want := "no case matches: the environments declare no regression agent and .silo/traces holds no trace; record a replay:PATH agent to make a case"
	if err == nil || err.Error() != want {
		t.Errorf("no case at all: %v, want %q", err, want)
	}
	e := &NoCaseError{Selection: Selection{Envs: []string{"a b"}}, Envs: []string{"x"}}
	if got := e.Describe(func(kind, q string) string { return "--" + kind + " " + q }, "fix"); got != "no case matches --env 'a b'; environments: x" {
		t.Errorf("Describe = %q", got)
	}
}

// TestMergeCases: the replay cases are merged among the regression cases
// in key order, and a consumer that stops early stops the stream.
func TestMergeCases(t *testing.T) {
	key := func(agent, task string) Case { return Case{Key: baseline.Key{Env: "e", Agent: agent, Task: task}} }
	regression := []Case{key("m", "1"), key("m", "2"), key("m", "4")}
	traces := []Case{key("a", "1"), key("m", "3"), key("z", "1"), key("z", "2")}
	var got []string
	for c := range mergeCases(slices.Values(regression), traces) {
		got = append(got, c.Key.Agent+c.Key.Task)
	}
	if want := []string{"a1", "m1", "m2", "m3", "m4", "z1", "z2"}; !cmp.Equal(got, want) {
		t.Errorf("merged %v, want %v", got, want)
	}
	for stop := 1; stop <= 7; stop++ {
		n := 0
		for range mergeCases(slices.Values(regression), traces) {
			n++
			if n == stop {
				break
			}
		}
		if n != stop {
			t.Errorf("stopped after %d, want %d", n, stop)
		}
	}
	got = nil
	for c := range mergeCases(slices.Values([]Case(nil)), traces[:2]) {
		got = append(got, c.Key.Agent+c.Key.Task)
	}
	if !cmp.Equal(got, []string{"a1", "m3"}) {
		t.Errorf("traces alone: %v", got)
	}
}

// TestCheckProjectEnvs: an environment the project names (a folder with a
// manifest) that the binary lacks is trouble when the selection selects
// it, and only then; a folder without a manifest names nothing.
func TestCheckProjectEnvs(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, ".silo", "environments")
	for _, name := range []string{"shop", "extra", "bare"} {
		if err := os.MkdirAll(filepath.Join(root, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"shop", "extra"} {
		if err := os.WriteFile(filepath.Join(root, name, env.ManifestFile), []byte(`{}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(root, "dirmanifest", env.ManifestFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	envs := []env.Environment{tinyEnv(t, "shop", []string{"S-1"}, "solver")}
	for _, tt := range []struct {
		patterns []string
		bad      bool
	}{
		{nil, true}, {[]string{"extra"}, true}, {[]string{"e*"}, true}, {[]string{"shop"}, false},
		{[]string{"bare"}, false}, {[]string{"dirmanifest"}, false}, {[]string{"file"}, false}, {[]string{"s*", "b*"}, false},
	} {
		err := CheckProjectEnvs(dir, envs, tt.patterns)
		if (err != nil) != tt.bad {
			t.Errorf("patterns %q: %v, want an error %v", tt.patterns, err, tt.bad)
		}
		if err != nil && !strings.Contains(err.Error(), "this binary has no environment extra (named in .silo/environments/extra)") {
			t.Errorf("patterns %q: %v", tt.patterns, err)
		}
	}
	if err := CheckProjectEnvs(t.TempDir(), envs, nil); err != nil {
		t.Errorf("a project without environments: %v", err)
	}
}

func TestQuoteAndUniq(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"crm", "crm"}, {"TASK-00_1.a/b:c", "TASK-00_1.a/b:c"}, {"TASK-*", "'TASK-*'"}, {"a b", "'a b'"}, {"it's", `'it'\''s'`}, {"", ""},
		{"Z09", "Z09"}, {"az", "az"}, {"AZ", "AZ"}, {"09", "09"}, {"é", "'é'"}, {"[x]", "'[x]'"}, {"`", "'`'"}, {"{", "'{'"}, {"@", "'@'"}, {"[", "'['"}, {"/", "/"},
	} {
		if got := report.ShellQuote(tt.in); got != tt.want {
			t.Errorf("report.ShellQuote(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := quoteList([]string{"a", "b*"}); got != "a, 'b*'" {
		t.Errorf("quoteList = %q", got)
	}
	if got := uniq([]string{"b", "a", "b", "c", "a"}); !cmp.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("uniq = %q", got)
	}
	for _, tt := range []struct {
		p    string
		want bool
	}{{"crm", true}, {"c*", false}, {"c?", false}, {"[c]", false}, {`c\d`, false}, {"exec:x", true}} {
		if got := isLiteral(tt.p); got != tt.want {
			t.Errorf("isLiteral(%q) = %v", tt.p, got)
		}
	}
}

// TestSelectRefusesTwoTracesOfOneCase: a trace in each format for one task
// are two sources of one case.
func TestSelectRefusesTwoTracesOfOneCase(t *testing.T) {
	bank := tinyEnv(t, "bank", []string{"B-1", "B-2"}, "teller")
	dir := t.TempDir()
	folder := filepath.Join(dir, TracesDir, "bank", "replay-x")
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	start := `{"type":"run_start","environment":"bank","task":{"id":"B-1"}}`
	for name, data := range map[string]string{"B-1" + traceLinesSuffix: start + "\n", "B-1" + traceArraySuffix: "[" + start + "]"} {
		if err := os.WriteFile(filepath.Join(folder, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := Select(dir, []env.Environment{bank}, Selection{}, storedKeys())
	if err == nil || !strings.Contains(err.Error(), "case bank/replay-x/B-1 comes from two sources: the trace ") || strings.Count(err.Error(), "the trace ") != 2 {
		t.Errorf("error %v", err)
	}
	// a selection without the case is not refused
	if _, err := Select(dir, []env.Environment{bank}, Selection{Tasks: []string{"B-2"}}, storedKeys()); err != nil {
		t.Errorf("without the case: %v", err)
	}
}
