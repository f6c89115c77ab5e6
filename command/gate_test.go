package command

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/fixtures"
	"github.com/agent-oracle/oracle/oracle"
)

// The flags of distribution cases refuse what makes no sense, naming the
// flag and what it wants.
func TestGateFlagMistakes(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"record", "--runs", "1"}, "--runs 1: a distribution is recorded from 2 runs or more"},
		{[]string{"record", "--runs", "3", "--repeat", "3"}, "--runs records distributions, whose runs are not compared with each other, so --repeat does nothing"},
		{[]string{"record", "--detect", "0.1"}, "--detect is about distributions; give --runs N too"},
		{[]string{"record", "--runs", "3", "--detect", "10"}, "--detect 10: want a drop in pass rate above 0 and below 1, such as 0.1 for 10 points"},
		{[]string{"check", "--margin", "1"}, "--margin 1: want a share of pass rate from 0 to below 1"},
		{[]string{"check", "--margin", "-0.1"}, "--margin -0.1: want a share"},
		{[]string{"check", "--max-errors", "1.5"}, "--max-errors 1.5: want a share of the runs from 0 to 1"},
		{[]string{"check", "--runs", "0"}, "--runs 0: want a whole number of at least 1"},
		{[]string{"check", "--model-jobs", "0"}, "--model-jobs 0: want a whole number of at least 1"},
		{[]string{"check", "--rerun-from", "r.json", "--task", "TASK-001"}, "--rerun-from checks the selection of its report, so --task selects nothing"},
		{[]string{"check", "--merge", "a.json", "--rerun-from", "r.json"}, "--merge runs no case, so --rerun-from selects nothing"},
		{[]string{"check", "--rerun-from", "none.json"}, "rerun: "},
		// the model flags, shared by run, record and check
		{[]string{"check", "--model-max-turns", "0"}, "--model-max-turns 0: want a whole number of at least 1"},
		{[]string{"record", "--model-retries", "-1"}, "--model-retries -1: want a whole number, 0 for none"},
		{[]string{"record", "--model-temperature", "-0.5"}, "--model-temperature -0.5: want a temperature of 0 or more"},
		{[]string{"run", "--task", "TASK-004", "--model-max-turns", "0"}, "--model-max-turns 0: want a whole number of at least 1"},
	} {
		var out, errOut bytes.Buffer
		code := Run(context.Background(), append([]string{"oracle", "-C", t.TempDir()}, tt.args...), fixtures.All, &out, &errOut)
		if code != ExitTrouble || !strings.Contains(errOut.String(), tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tt.args, code, errOut.String(), tt.want)
		}
	}
}

// A model agent's case recorded byte for byte is warned about, once for
// each environment and agent; other agents are not.
func TestWarnModelBytes(t *testing.T) {
	var cases []oracle.Case
	for _, k := range []struct{ env, agent, ref, task string }{
		{"crm", "gpt", "openai:gpt-4o", "TASK-001"}, {"crm", "gpt", "openai:gpt-4o", "TASK-002"},
		{"crm", "claude", "anthropic:claude-x\x1b[2J", "TASK-001"}, {"crm", "solver", "solver", "TASK-001"},
		{"crm", "probe", "exec:python3 agent.py", "TASK-001"},
	} {
		cases = append(cases, oracle.Case{Key: baseline.Key{Env: k.env, Agent: k.agent, Task: k.task}, AgentRef: k.ref})
	}
	var w bytes.Buffer
	warnModelBytes(&w, &oracle.Selected{Cases: oracle.CaseStream{Len: len(cases), All: slices.Values(cases)}})
	want := "warning: crm/gpt is a model agent (openai:gpt-4o): a model's bytes rarely repeat; record it as a distribution with --runs N (e.g. --runs 10)\n" +
		"warning: crm/claude is a model agent (\"anthropic:claude-x\\x1b[2J\"): a model's bytes rarely repeat; record it as a distribution with --runs N (e.g. --runs 10)\n"
	if w.String() != want {
		t.Errorf("warnings:\n%s\nwant:\n%s", w.String(), want)
	}
}

// A notice from a rollout is one escaped line, after the progress line is
// cleared on a terminal.
func TestNoticePrinter(t *testing.T) {
	var w bytes.Buffer
	k := baseline.Key{Env: "crm", Agent: "gpt", Task: "TASK-004"}
	noticePrinter(&w, false)(k, 3, "model API request failed (503: busy\x1b[31m\nnext)")
	noticePrinter(&w, true)(k, 1, "retry")
	want := "notice: crm/gpt/TASK-004 run 3: \"model API request failed (503: busy\\x1b[31m\\nnext)\"\n" +
		"\r\x1b[Knotice: crm/gpt/TASK-004 run 1: retry\n"
	if w.String() != want {
		t.Errorf("notices %q, want %q", w.String(), want)
	}
}
