package timeline

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/runner"
	"github.com/agent-oracle/oracle/runner/statediff"
)

//go:embed page.html.tmpl
var pageText string

//go:embed page.css
var pageCSS string

var pageTemplate = template.Must(template.New("page").Funcs(template.FuncMap{"vis": visible}).Parse(pageText))

// CSP is the page's content security policy: nothing may be loaded or run
// but its own style sheet, named by its hash. The page carries it in a
// meta element; a server sends it as a header too.
var CSP = "default-src 'none'; style-src 'sha256-" + styleHash() + "'; img-src 'none'; script-src 'none'; base-uri 'none'; form-action 'none'"

func styleHash() string {
	sum := sha256.Sum256([]byte(pageCSS))
	return base64.StdEncoding.EncodeToString(sum[:])
}

// Options are what the page says of the program that made it.
type Options struct {
	// Program is the program's name and version (oracle v0.4.0).
	Program string
}

// Write writes the page of r to w: one self-contained HTML page.
func Write(w io.Writer, r *Rollout, opts Options) error {
	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, build(r, opts)); err != nil {
		return fmt.Errorf("view: %w", err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// page is what the template shows.
type page struct {
	CSP     string
	Style   template.CSS
	Title   string
	Heading string
	Facts   []fact
	Verdict verdict

	Instruction     shown
	InstructionNote string

	Entries      []entry
	Omitted      int
	TimelineNote string

	Answer     shown
	HasAnswer  bool
	AnswerNote string

	Checks     []check
	ChecksNote string

	Outcome      []fact
	OutcomeError shown

	Collections []collection
	Scalars     []row
	DiffNote    string

	Files   []file
	Source  string
	Program string
}

type fact struct{ Name, Value string }

type verdict struct{ Word, Mark, Class string }

type check struct {
	Label, Kind, Word, Mark, Class string
	Detail                         shown
}

type collection struct {
	Name, Note string
	Rows       []row
}

// row is one line of the state diff: a member's field change (from → to),
// or a member added or removed with its value.
type row struct {
	ID, Path, What string
	First          bool // the member's first row
	From, To       shown
	HasFrom, HasTo bool
}

type file struct{ Name, Note string }

// task is what the files say of the task and the run.
type task struct {
	ID, Title, Instruction, Env, Agent, RunID string
	from                                      string
}

func build(r *Rollout, opts Options) *page {
	c := newCutter()
	p := &page{CSP: CSP, Style: template.CSS(pageCSS), Program: opts.Program}
	t := taskOf(r)
	p.Heading = r.Source.Path
	switch {
	case t.ID != "" && t.Title != "":
		p.Heading = t.ID + " · " + t.Title
	case t.ID != "":
		p.Heading = t.ID
	}
	p.Title = "oracle view: " + plainText(p.Heading)
	p.facts(r, t)
	p.Verdict = verdictOf(r.Result)

	if t.Instruction != "" {
		p.Instruction = c.text(t.Instruction, t.from)
	} else {
		p.InstructionNote = "The files do not hold the task's instruction: " + instructionGap(r)
	}

	tl := &timeline{r: r, cut: c}
	tl.build()
	p.Entries, p.Omitted = tl.entries, tl.omitted
	switch {
	case !r.HasTrace && r.HasCalls:
		p.TimelineNote = "There is no trace: the timeline is calls.json's, the calls in order without times, model turns or the agent's other events."
	case !r.HasTrace:
		p.TimelineNote = "There is no trace and no calls.json: the rollout's steps are not known."
	case len(p.Entries) == 0:
		p.TimelineNote = "The trace is empty."
	}

	p.answer(r, c)
	p.checks(r, c)
	p.outcome(r, c)
	p.stateDiff(r, c)
	for _, name := range Files {
		f := file{Name: name}
		if path, ok := r.Source.Paths[name]; ok {
			f.Name = filepath.Base(path)
		}
		if n, ok := r.Sizes[name]; ok {
			f.Note = size(n)
		} else {
			f.Note = "not there"
		}
		p.Files = append(p.Files, f)
	}
	if r.Source.Case != "" {
		p.Source = "case " + r.Source.Case + " at " + r.Source.Path + ".*"
	} else {
		p.Source = "run folder " + r.Source.Path
	}
	return p
}

// plainText is s with its invisible characters named, for text where no
// markup can mark them (the page's title).
func plainText(s string) string {
	var b strings.Builder
	for _, p := range visible(s) {
		if p.Esc {
			b.WriteString("⟨" + p.Text + "⟩")
		} else {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// taskOf reads the task from run.json, else from the trace's run_start.
func taskOf(r *Rollout) task {
	var t task
	if r.Run != nil {
		t = task{ID: r.Run.Task.ID, Title: r.Run.Task.Title, Instruction: r.Run.Task.Instruction,
			Env: r.Run.Environment, Agent: r.Run.Config.Agent, RunID: r.Run.RunID, from: "run.json"}
		if t.ID == "" {
			t.ID = r.Run.TaskID
		}
	}
	for i := range r.Trace {
		ev := &r.Trace[i]
		if ev.Type != "run_start" {
			continue
		}
		var start struct {
			RunID       string           `json:"runId"`
			Environment string           `json:"environment"`
			Task        env.Task         `json:"task"`
			Config      runner.RunConfig `json:"config"`
		}
		// a field of the wrong type is left out, the others are read
		b, _ := json.Marshal(ev.Fields)
		json.Unmarshal(b, &start)
		t.ID = cmpOr(t.ID, start.Task.ID)
		t.Title = cmpOr(t.Title, start.Task.Title)
		if t.Instruction == "" && start.Task.Instruction != "" {
			t.Instruction, t.from = start.Task.Instruction, fmt.Sprintf("%s (line %d)", fileOf(r, runner.TraceFile), ev.Line)
		}
		t.Env = cmpOr(t.Env, start.Environment)
		t.Agent = cmpOr(t.Agent, start.Config.Agent)
		t.RunID = cmpOr(t.RunID, start.RunID)
		break
	}
	if t.from == "" {
		t.from = fileOf(r, runner.RunFile)
	}
	return t
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func fileOf(r *Rollout, name string) string {
	if p, ok := r.Source.Paths[name]; ok {
		return filepath.Base(p)
	}
	return name
}

// instructionGap says why the instruction is not known.
func instructionGap(r *Rollout) string {
	switch {
	case r.Run != nil && r.HasTrace:
		return "run.json has no task (the original runner's run.json) and the trace no run_start."
	case r.Run != nil:
		return "run.json has no task and there is no trace."
	case r.HasTrace:
		return "there is no run.json and the trace has no run_start."
	}
	return "there is no run.json and no trace."
}

func (p *page) facts(r *Rollout, t task) {
	add := func(name, value string) {
		if value != "" {
			p.Facts = append(p.Facts, fact{name, value})
		}
	}
	add("environment", t.Env)
	add("agent", t.Agent)
	add("case", r.Source.Case)
	add("run", t.RunID)
	if run := r.Run; run != nil {
		add("started", run.StartedAt)
		if run.StartedAt != "" || run.DurationMs > 0 {
			add("took", (time.Duration(run.DurationMs) * time.Millisecond).String())
		}
		if run.Config.MaxToolCalls > 0 {
			add("budget", fmt.Sprintf("%d tool calls, %s", run.Config.MaxToolCalls, time.Duration(run.Config.TimeoutMs)*time.Millisecond))
		}
		add("sandbox", string(run.Sandbox))
		verifier := run.VerifierID
		if run.VerifierName != "" {
			verifier = strings.TrimSpace(verifier + " · " + run.VerifierName)
		}
		add("verifier", verifier)
		add("difficulty", run.Task.Difficulty)
	}
}

// verdictOf marks the verdict in a word and a sign, never by colour alone.
func verdictOf(res *runner.Result) verdict {
	if res == nil {
		return verdict{Word: "no result", Mark: "–", Class: "none"}
	}
	v := res.Verdict
	if v == "" { // the original runner's result has passed only
		v = env.Fail
		if res.Passed {
			v = env.Pass
		}
	}
	switch v {
	case env.Pass:
		return verdict{Word: string(v), Mark: "✓", Class: "pass"}
	case env.Inconclusive:
		return verdict{Word: string(v), Mark: "?", Class: "inconclusive"}
	}
	return verdict{Word: string(v), Mark: "✗", Class: "fail"}
}

func (p *page) answer(r *Rollout, c *cutter) {
	if r.Result != nil && r.Result.AgentOutput != nil {
		p.HasAnswer = true
		if string(r.Result.AgentOutput) == "null" {
			p.AnswerNote = "The agent gave no answer (agentOutput is null)."
			p.HasAnswer = false
			return
		}
		p.Answer = c.json(r.Result.AgentOutput, fileOf(r, runner.ResultFile)+" (agentOutput)")
		return
	}
	for i := range r.Trace {
		if ev := &r.Trace[i]; ev.Type == "agent_output" {
			p.HasAnswer = true
			p.Answer = c.json(ev.Fields["output"], fmt.Sprintf("%s (line %d)", fileOf(r, runner.TraceFile), ev.Line))
			p.AnswerNote = "From the trace: there is no result.json."
			return
		}
	}
	p.AnswerNote = "The files hold no answer: there is no result.json and the trace has no agent_output."
}

func (p *page) checks(r *Rollout, c *cutter) {
	var list []env.CheckResult
	where := fileOf(r, runner.ResultFile)
	if r.Result != nil {
		list = r.Result.Checks
	} else {
		for i := range r.Trace {
			if ev := &r.Trace[i]; ev.Type == "verifier_result" {
				json.Unmarshal(ev.Fields["checks"], &list)
				where = fmt.Sprintf("%s (line %d)", fileOf(r, runner.TraceFile), ev.Line)
				p.ChecksNote = "From the trace: there is no result.json."
			}
		}
	}
	if len(list) == 0 && p.ChecksNote == "" {
		p.ChecksNote = "No checks are recorded."
		if r.Result == nil {
			p.ChecksNote = "There is no result.json: the checks are not known."
		}
	}
	for _, ch := range list {
		p.Checks = append(p.Checks, checkOf(ch, c, where))
	}
}

// checkOf says how a check came out in the words of its kind.
func checkOf(ch env.CheckResult, c *cutter, where string) check {
	kind := ch.Kind
	if kind == "" { // the original runner's checks: required or not
		kind = env.OptionalKind
		if ch.Required {
			kind = env.Required
		}
	}
	v := check{Label: ch.Label, Kind: string(kind), Detail: c.text(ch.Detail, where)}
	yes, no := "passed", "failed"
	switch kind {
	case env.Forbidden:
		yes, no = "absent", "confirmed"
	case env.Coverage:
		yes, no = "complete", "incomplete"
	}
	if ch.Passed {
		v.Word, v.Mark, v.Class = yes, "✓", "pass"
	} else {
		v.Word, v.Mark, v.Class = no, "✗", "fail"
	}
	return v
}

func (p *page) outcome(r *Rollout, c *cutter) {
	res := r.Result
	if res == nil {
		return
	}
	add := func(name, value string) { p.Outcome = append(p.Outcome, fact{name, value}) }
	add("verdict", p.Verdict.Mark+" "+p.Verdict.Word)
	add("reward", strconv.FormatFloat(res.Reward, 'f', -1, 64))
	add("termination", cmpOr(res.TerminationReason, "not recorded"))
	add("tool calls", fmt.Sprintf("%d, of which %d failed", res.ToolCalls, res.ToolErrors))
	if res.RequiredTotal > 0 {
		add("required checks", fmt.Sprintf("%d of %d passed", res.RequiredPassed, res.RequiredTotal))
	}
	if len(res.FailedRequired) > 0 {
		add("failed required", strings.Join(res.FailedRequired, "; "))
	}
	if res.Verdict != "" {
		add("violations", cmpOr(strings.Join(res.Violations, "; "), "none"))
	}
	if res.Error != nil {
		p.OutcomeError = c.text(*res.Error, fileOf(r, runner.ResultFile)+" (error)")
	}
}

func (p *page) stateDiff(r *Rollout, c *cutter) {
	d := r.StateDiff
	if d == nil {
		p.DiffNote = "There is no state-diff.json."
		return
	}
	where := fileOf(r, runner.StateDiffFile)
	for _, s := range d.Scalars {
		r := changeRow(cmpOr(s.Field, s.Path), "", s, c, where)
		r.First = true
		p.Scalars = append(p.Scalars, r)
	}
	for _, name := range d.Names() {
		col := d.Collections[name]
		v := collection{Name: name}
		var counts []string
		for _, side := range []struct {
			what    string
			members []Member
		}{{"changed", col.Changed}, {"added", col.Added}, {"removed", col.Removed}} {
			if len(side.members) > 0 {
				counts = append(counts, fmt.Sprintf("%d %s", len(side.members), side.what))
			}
			for _, m := range side.members {
				v.Rows = append(v.Rows, memberRows(m, side.what, c, where)...)
			}
		}
		v.Note = strings.Join(counts, ", ")
		p.Collections = append(p.Collections, v)
	}
	if len(p.Scalars) == 0 && len(p.Collections) == 0 {
		p.DiffNote = "The rollout changed nothing in the world."
	}
}

// memberRows are the rows of one member: each field change of a changed
// member, or the value of one added or removed.
func memberRows(m Member, what string, c *cutter, where string) []row {
	var rows []row
	switch {
	case what == "changed" && len(m.Changes) > 0:
		for _, ch := range m.Changes {
			rows = append(rows, changeRow(m.ID, cmpOr(ch.Path, "(the whole member)"), ch, c, where))
		}
	case what == "added" && m.Value != nil:
		rows = append(rows, row{ID: m.ID, What: "added", To: c.json(m.Value, where), HasTo: true})
	case what == "removed" && m.Value != nil:
		rows = append(rows, row{ID: m.ID, What: "removed", From: c.json(m.Value, where), HasFrom: true})
	default:
		rows = append(rows, row{ID: m.ID, What: what + " (the file names the member only)"})
	}
	rows[0].First = true
	return rows
}

func changeRow(id, path string, ch statediff.Change, c *cutter, where string) row {
	r := row{ID: id, Path: path}
	if ch.From != nil && ch.Op != "add" {
		r.From, r.HasFrom = c.compact(ch.From, where), true
	}
	if ch.To != nil && ch.Op != "remove" {
		r.To, r.HasTo = c.compact(ch.To, where), true
	}
	switch ch.Op {
	case "add":
		r.What = "added"
	case "remove":
		r.What = "removed"
	}
	return r
}
