package env

import (
	"fmt"
	"sort"
	"strings"

	"github.com/agent-oracle/oracle/internal/inputschema"
)

// Level says whether a finding fails validation.
type Level string

const (
	// LevelError findings make a report not OK.
	LevelError Level = "error"
	// LevelWarning findings are worth a look but leave the report OK.
	LevelWarning Level = "warning"
)

// Finding is one problem Validate found, with a stable code:
//
//	task_invalid            a task file does not load (error)
//	verifier_not_found      a task names a verifier that is not registered (error)
//	task_not_found          a verifier names a task that does not exist (error)
//	verifier_unused         a registered verifier no task uses (warning)
//	schema_invalid          a tool's input schema does not compile as JSON Schema (error)
//	state_invalid           NewState (or Seed) fails, panics or is not a JSON object (error)
//	state_nondeterministic  two calls of NewState (or Seed) for a task differ (error)
//	agent_not_found         a regression agent is not among the agents (error)
//	no_regression_agent     nothing to freeze as a baseline (warning)
//	manifest_invalid        the project's manifest for the environment is wrong (error)
//	tasks_stale             tasks on disk differ from the built ones (warning)
//
// oracle validate adds the findings of the redaction rules
// (oracle.RedactionFindings): redact_invalid (error), redact_not_frozen and
// redact_unused (warnings).
type Finding struct {
	Level   Level  `json:"level"`
	Code    string `json:"code"`
	Message string `json:"message"`
	// Task and Verifier name the task and verifier a verifier_not_found
	// finding is about, so a caller can say how to add the verifier.
	Task     string `json:"-"`
	Verifier string `json:"-"`
}

// String describes a finding as one line: "error verifier_not_found: …".
func (f Finding) String() string { return fmt.Sprintf("%s %s: %s", f.Level, f.Code, f.Message) }

// Counts sizes an environment.
type Counts struct {
	Agents    int `json:"agents"`
	Tasks     int `json:"tasks"`
	Tools     int `json:"tools"`
	Verifiers int `json:"verifiers"`
}

// ValidationReport is the validation of one environment, in the shape of Silo's
// validation report. OK is true when no finding is an error.
type ValidationReport struct {
	Environment string    `json:"environment"`
	OK          bool      `json:"ok"`
	Findings    []Finding `json:"findings"`
	Counts      Counts    `json:"counts"`
}

// Errors returns the number of error findings.
func (r ValidationReport) Errors() int { return r.count(LevelError) }

// Warnings returns the number of warning findings.
func (r ValidationReport) Warnings() int { return r.count(LevelWarning) }

func (r ValidationReport) count(l Level) int {
	n := 0
	for _, f := range r.Findings {
		if f.Level == l {
			n++
		}
	}
	return n
}

// Validate checks an environment against the authoring contract without
// running an agent: its tasks load and name registered verifiers, every
// verifier's task exists and some task uses it, tool schemas compile,
// NewState works for every task, gives a JSON object and gives the same
// bytes twice, and its regression agents exist. When projectDir is not
// empty and holds a manifest for the environment, the manifest is checked
// too, with the task files in the folder it names.
func Validate(e Environment, projectDir string) ValidationReport {
	v := &validation{report: ValidationReport{Environment: e.Name(), Findings: []Finding{}}}
	tasks, err := e.Tasks()
	if err != nil {
		v.add(LevelError, "task_invalid", "%v; fix the task file", err)
	}
	verifiers := e.Verifiers()
	tools := e.Tools()
	v.report.Counts = Counts{Agents: len(AgentNames(e)), Tasks: len(tasks), Tools: len(tools), Verifiers: len(verifiers)}

	if err == nil {
		// with tasks that do not load, every verifier would look orphaned
		v.links(e, tasks, verifiers)
	}
	v.schemas(tools, termsOf(e).Schema)
	v.states(e, tasks)
	v.agents(e)
	if projectDir != "" {
		v.manifest(e, tasks, projectDir)
	}
	v.report.OK = v.report.Errors() == 0
	return v.report
}

type validation struct {
	report ValidationReport
}

func (v *validation) add(level Level, code, format string, args ...any) {
	v.report.Findings = append(v.report.Findings, Finding{Level: level, Code: code, Message: oneLine(fmt.Sprintf(format, args...))})
}

// links checks that tasks and verifiers name each other.
func (v *validation) links(e Environment, tasks []Task, verifiers []VerifierInfo) {
	taskIDs := map[string]bool{}
	used := map[string]bool{}
	for _, t := range tasks {
		taskIDs[t.ID], taskIDs[t.BaseID()] = true, true
		used[t.VerifierID] = true
		if _, ok := e.Verifier(t.VerifierID); !ok {
			v.add(LevelError, "verifier_not_found", "task %s names verifier %s, which %s does not register; register it, or fix the task's verifierId",
				t.ID, t.VerifierID, e.Name())
			f := &v.report.Findings[len(v.report.Findings)-1]
			f.Task, f.Verifier = t.ID, t.VerifierID
		}
	}
	for _, ver := range verifiers {
		if !taskIDs[ver.TaskID] {
			v.add(LevelError, CodeTaskNotFound, "verifier %s grades task %s, which %s does not have; add tasks/%s.json or fix the verifier's TaskID",
				ver.ID, ver.TaskID, e.Name(), ver.TaskID)
		}
		if !used[ver.ID] {
			v.add(LevelWarning, "verifier_unused", "no task names verifier %s; set a task's verifierId to it or remove it", ver.ID)
		}
	}
}

// schemas compiles every tool's input schema.
func (v *validation) schemas(tools []ToolSpec, schema string) {
	for _, t := range tools {
		if _, err := inputschema.Compile(t.InputSchema); err != nil {
			v.add(LevelError, "schema_invalid", "tool %s: input schema does not compile: %s; fix the tool's %s", t.Name, schemaProblem(err), schema)
		}
	}
}

// agents checks that the regression agents exist.
func (v *validation) agents(e Environment) {
	regression := e.RegressionAgents()
	for _, name := range regression {
		if _, declared := AgentRef(e, name); declared {
			continue // resolved when it runs
		}
		if _, ok := e.Agent(name); !ok {
			v.add(LevelError, CodeAgentNotFound, "regression agent %s is not among the agents of %s (%s); add it to Definition.Agents or remove it from Regression",
				name, e.Name(), strings.Join(e.Agents(), ", "))
		}
	}
	if len(regression) == 0 {
		fix := "add a reference solver to Definition.Agents"
		if _, ok := e.(Declared); ok {
			fix = `declare one in its manifest's "agents", e.g. "agents": {"solver": "module:solver.agent.ts"}`
		}
		v.add(LevelWarning, "no_regression_agent", "%s has no regression agent, so oracle record and check have no case for it; %s", e.Name(), fix)
	}
}

// schemaProblem shortens a schema compiler's error to the problems it lists.
func schemaProblem(err error) string {
	var problems []string
	for _, line := range strings.Split(err.Error(), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "- at ") && !strings.HasSuffix(line, " failed") {
			problems = append(problems, strings.TrimPrefix(line, "- "))
		}
	}
	if len(problems) == 0 {
		return err.Error()
	}
	sort.Strings(problems)
	return "not valid JSON Schema: " + strings.Join(problems, "; ")
}

// oneLine joins the lines of s with "; ".
func oneLine(s string) string {
	lines := strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' })
	for i := range lines {
		lines[i] = strings.TrimSpace(lines[i])
	}
	return strings.Join(lines, "; ")
}
