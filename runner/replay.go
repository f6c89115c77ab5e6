package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/internal/safeio"
)

// Recording is what a recorded trace holds for a replay: the script of its
// tool calls and final output, and the environment and task its run_start
// event names (empty when it has none, as in the original runner's
// tool-events files).
type Recording struct {
	Script      Script
	Environment string
	Task        string
	// OutputFrom is the file the final output was read from when the trace
	// has no agent_output event (the original runner's traces): a
	// result.json beside the trace. Empty when the output is the trace's.
	OutputFrom string
	// TargetFrom is the file the environment and task were read from when
	// the trace has no run_start event (the original runner's traces): a
	// run.json beside the trace. Empty when they are the trace's own.
	TargetFrom string
	// hasOutput is set when the trace has an agent_output event.
	hasOutput bool
}

// Target returns the environment and task the trace at path replays: the
// ones its run_start names. envName and taskID, when not empty, must agree
// with them, and they name them for a trace without run_start. run, record
// and the replay cases all hold a trace to this one rule.
func (r *Recording) Target(path, envName, taskID string) (string, string, error) {
	pick := func(what TargetField, recorded, given string) (string, error) {
		switch {
		case recorded != "" && given != "" && recorded != given:
			return "", &TargetError{Path: path, Field: what, Recorded: recorded, Given: given, By: r.TargetFrom}
		case recorded != "":
			return recorded, nil
		case given != "":
			return given, nil
		}
		return "", &TargetError{Path: path, Field: what}
	}
	e, err := pick(TargetEnv, r.Environment, envName)
	if err != nil {
		return "", "", err
	}
	t, err := pick(TargetTask, r.Task, taskID)
	if err != nil {
		return "", "", err
	}
	return e, t, nil
}

// TargetField is what Target needs from a trace or its caller.
type TargetField string

const (
	TargetEnv  TargetField = "environment"
	TargetTask TargetField = "task"
)

// TargetError is Target's error when the trace names no environment or task
// and none is given (Recorded and Given are empty), or names another one
// than the one given.
type TargetError struct {
	Path            string
	Field           TargetField
	Recorded, Given string
	// By is the file the recorded value was read from when it is not the
	// trace itself (a run.json beside it); empty otherwise.
	By string
}

func (e *TargetError) Error() string {
	if e.Recorded == "" {
		return fmt.Sprintf("replay %s: the trace names no %s (it has no run_start event)", e.Path, e.Field)
	}
	by := ""
	if e.By != "" {
		by = " (by " + e.By + ")"
	}
	return fmt.Sprintf("replay %s: the trace is of %s %s%s, not %s", e.Path, e.Field, e.Recorded, by, e.Given)
}

// ReadTrace reads a recorded trace for a replay. See ParseTrace. A trace
// with no agent_output event, as the original TypeScript runner writes
// them (only tool_call and tool_result), takes its final output from the
// agentOutput of the result.json beside it (see ReadBesideOutput), and
// names that file in OutputFrom.
func ReadTrace(path string) (*Recording, error) {
	data, err := safeio.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("replay: %w; give the path of a trace.jsonl, relative to the current folder", err)
	}
	rec, err := ParseTrace(path, data)
	if err != nil {
		return nil, err
	}
	if err := rec.ReadBesideOutput(path); err != nil {
		return nil, err
	}
	if err := rec.ReadBesideRun(path); err != nil {
		return nil, err
	}
	return rec, nil
}

// ParseTrace parses a recorded trace: oracle's trace.jsonl or the original
// TypeScript runner's, one JSON event a line, or a JSON array of events as
// in the original runner's *.tool-events.json files. The tool_call events
// (tool, input) become the script's calls in the order they appear, and the
// agent_output event (output) its final output; every other event is
// skipped. name is the file's name for errors, which give its line.
func ParseTrace(name string, data []byte) (*Recording, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("replay %s: the file is empty; give a trace.jsonl written by oracle run", name)
	}
	rec := &Recording{Script: Script{Calls: []ScriptCall{}}}
	started := false
	add := func(raw []byte) error {
		ev, err := parseEvent(raw)
		if err != nil {
			return err
		}
		switch ev.Type {
		case "run_start":
			started = true
			rec.Environment = ev.Environment
			rec.Task = ev.taskID()
		case "tool_call":
			if ev.Tool == "" {
				return errors.New("tool_call event has no tool")
			}
			c := ScriptCall{Tool: ev.Tool}
			if len(ev.Input) > 0 && string(ev.Input) != "null" {
				var buf bytes.Buffer
				if err := json.Compact(&buf, ev.Input); err != nil {
					return fmt.Errorf("tool_call input: %v", err)
				}
				c.Input = buf.Bytes()
			}
			rec.Script.Calls = append(rec.Script.Calls, c)
		case "trace_truncated":
			return errors.New("the trace was cut short at its size limit (a trace_truncated event): it lacks events of the rollout, so it cannot be replayed")
		case "agent_output":
			rec.hasOutput = true
			if len(ev.Output) > 0 && string(ev.Output) != "null" {
				var buf bytes.Buffer
				if err := json.Compact(&buf, ev.Output); err != nil {
					return fmt.Errorf("agent_output output: %v", err)
				}
				rec.Script.Output = buf.Bytes()
			}
		}
		return nil
	}
	each := eachLineEvent
	if trimmed[0] == '[' {
		each = eachArrayEvent
	}
	if n, err := each(data, add); err != nil {
		return nil, fmt.Errorf("replay %s:%d: %v; give a trace.jsonl written by oracle run", name, n, err)
	}
	if !started && len(rec.Script.Calls) == 0 && rec.Script.Output == nil {
		return nil, fmt.Errorf("replay %s: no run_start, tool_call or agent_output event; give a trace.jsonl written by oracle run", name)
	}
	return rec, nil
}

// event is the part of a trace event a replay reads.
type event struct {
	Type        string          `json:"type"`
	Tool        string          `json:"tool"`
	Input       json.RawMessage `json:"input"`
	Output      json.RawMessage `json:"output"`
	Environment string          `json:"environment"`
	TaskID      string          `json:"taskId"`
	Task        json.RawMessage `json:"task"`
}

// taskID is the id of run_start's task: the task object's id, the task
// itself when it is a string, or taskId.
func (e event) taskID() string {
	var t struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(e.Task, &t) == nil && t.ID != "" {
		return t.ID
	}
	var s string
	if json.Unmarshal(e.Task, &s) == nil && s != "" {
		return s
	}
	return e.TaskID
}

func parseEvent(raw []byte) (event, error) {
	var ev event
	if err := json.Unmarshal(raw, &ev); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			return ev, fmt.Errorf("not JSON: %v: %s", err, excerpt(raw))
		case errors.As(err, &typ) && typ.Field == "":
			return ev, fmt.Errorf("a JSON %s, not an event object: %s", typ.Value, excerpt(raw))
		}
		return ev, fmt.Errorf("not a trace event: %v", err)
	}
	if ev.Type == "" {
		return ev, fmt.Errorf("event has no type: %s", excerpt(raw))
	}
	return ev, nil
}

// eachLineEvent calls f with each non-blank line of JSON Lines data. An
// error comes with its line.
func eachLineEvent(data []byte, f func(raw []byte) error) (int, error) {
	for n := 1; len(data) > 0; n++ {
		l := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			l, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if l = bytes.TrimSpace(l); len(l) == 0 {
			continue
		}
		if err := f(l); err != nil {
			return n, err
		}
	}
	return 0, nil
}

// eachArrayEvent calls f with each element of a JSON array of events. An
// error comes with its line.
func eachArrayEvent(data []byte, f func(raw []byte) error) (int, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	lineAt := func(off int64) int { return bytes.Count(data[:min(off, int64(len(data)))], []byte("\n")) + 1 }
	if _, err := dec.Token(); err != nil {
		return lineAt(dec.InputOffset()), fmt.Errorf("not JSON: %v", err)
	}
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			off := dec.InputOffset()
			var syn *json.SyntaxError
			if errors.As(err, &syn) {
				off = syn.Offset
			}
			return lineAt(off), fmt.Errorf("not JSON: %v", err)
		}
		if err := f(raw); err != nil {
			end := dec.InputOffset() // the element ends here; it starts len(raw) before
			return lineAt(end - int64(len(raw))), err
		}
	}
	if _, err := dec.Token(); err != nil {
		return lineAt(dec.InputOffset()), fmt.Errorf("not JSON: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return lineAt(dec.InputOffset()), errors.New("data after the array of events")
	}
	return 0, nil
}

// MaxResultBytes bounds a result.json a replay reads beside its trace.
const MaxResultBytes = 64 << 20

// ReadBesideOutput gives a recording whose trace (at path) has no
// agent_output event the final output of the run it came from: the
// agentOutput of <NAME>.result.json beside a trace called
// <NAME>.trace.jsonl or <NAME>.tool-events.json, or else of result.json in
// the same folder (the original runner's run folder). It sets OutputFrom
// to that file when its agentOutput is not null. No such file leaves the
// recording as it is; a file that is not a regular file or not a result
// is an error naming it.
func (r *Recording) ReadBesideOutput(path string) error {
	if r.hasOutput {
		return nil
	}
	name, err := findBeside(path, ResultFile, "the trace has no final output, and a replay reads it")
	if name == "" || err != nil {
		return err
	}
	out, err := readAgentOutput(name)
	if err != nil {
		return fmt.Errorf("replay %s: the trace has no final output, and %s beside it %v; fix or remove it", path, name, err)
	}
	if out != nil {
		r.Script.Output, r.OutputFrom = out, name
	}
	return nil
}

// findBeside returns the first of beside(path, name) that exists, or ""
// when none does. One that is not a regular file is an error naming it,
// saying why the replay reads it.
func findBeside(path, name, why string) (string, error) {
	for _, f := range beside(path, name) {
		info, err := os.Lstat(f)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("replay %s: %w", path, err)
		}
		if !info.Mode().IsRegular() {
			return "", fmt.Errorf("replay %s: %s is not a regular file; %s from the %s beside it: replace or remove it", path, f, why, name)
		}
		return f, nil
	}
	return "", nil
}

// beside lists where the file called name (result.json, run.json) of the
// run that wrote the trace at path may be: <NAME>.name beside a trace
// called <NAME>.trace.jsonl or <NAME>.tool-events.json, then name in the
// same folder (the original runner's run folder).
func beside(path, name string) []string {
	dir, base := filepath.Split(path)
	var out []string
	for _, suffix := range []string{".trace.jsonl", ".tool-events.json"} {
		if stem, ok := strings.CutSuffix(base, suffix); ok && stem != "" {
			out = append(out, filepath.Join(dir, stem+"."+name))
		}
	}
	return append(out, filepath.Join(dir, name))
}

// ReadBesideRun gives a recording whose trace (at path) names no
// environment or task (it has no run_start event, as the original runner's
// traces) those of the run it came from: the environment and taskId of the
// run.json beside it (see beside), and sets TargetFrom to that file. No
// such file leaves the recording as it is; a file that is not a regular
// file or not a run.json is an error naming it.
func (r *Recording) ReadBesideRun(path string) error {
	if r.Environment != "" && r.Task != "" {
		return nil
	}
	name, err := findBeside(path, RunFile, "the trace names no environment or task, and a replay reads them")
	if name == "" || err != nil {
		return err
	}
	data, err := safeio.ReadFile(name)
	if err != nil {
		return fmt.Errorf("replay %s: %w", path, err)
	}
	var run struct {
		Environment string `json:"environment"`
		TaskID      string `json:"taskId"`
	}
	if err := json.Unmarshal(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), &run); err != nil {
		return fmt.Errorf("replay %s: the trace names no environment or task, and %s beside it is not a run.json: %v; fix or remove it", path, name, err)
	}
	if r.Environment == "" && run.Environment != "" {
		r.Environment, r.TargetFrom = run.Environment, name
	}
	if r.Task == "" && run.TaskID != "" {
		r.Task, r.TargetFrom = run.TaskID, name
	}
	return nil
}

// WithOutput returns the trace data (of the recording rec, JSON Lines or a
// JSON array of events) as JSON Lines that replay on their own: when rec's
// final output was read from a result.json beside the trace
// (rec.OutputFrom), an agent_output event holding it is appended, whose
// "from" (from, e.g. the run folder's name and result.json) and "why" say
// where it came from. Otherwise data is returned as it is.
func WithOutput(data []byte, rec *Recording, from string) ([]byte, error) {
	if rec.OutputFrom == "" {
		return data, nil
	}
	var out bytes.Buffer
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if trimmed := bytes.TrimLeft(data, " \t\r\n"); len(trimmed) > 0 && trimmed[0] == '[' {
		if _, err := eachArrayEvent(data, func(raw []byte) error {
			if err := json.Compact(&out, raw); err != nil {
				return err
			}
			out.WriteByte('\n')
			return nil
		}); err != nil {
			return nil, err
		}
	} else {
		out.Write(data)
		if len(data) > 0 && data[len(data)-1] != '\n' {
			out.WriteByte('\n')
		}
	}
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	err := enc.Encode(struct {
		Type   string          `json:"type"`
		Output json.RawMessage `json:"output"`
		From   string          `json:"from"`
		Why    string          `json:"why"`
	}{"agent_output", rec.Script.Output, from,
		"the original trace has no agent_output event; this is the agentOutput of the result.json beside it, taken when the trace was imported"})
	if err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// readAgentOutput reads the agentOutput of a result.json, compacted; nil
// when it is null or absent.
func readAgentOutput(name string) (json.RawMessage, error) {
	data, err := safeio.ReadFile(name) // a regular file only: a FIFO is not waited on
	if err != nil {
		return nil, err
	}
	if len(data) > MaxResultBytes {
		return nil, fmt.Errorf("is over %d bytes", MaxResultBytes)
	}
	var res struct {
		AgentOutput json.RawMessage `json:"agentOutput"`
	}
	if err := json.Unmarshal(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), &res); err != nil {
		return nil, fmt.Errorf("is not a result.json: %v", err)
	}
	if len(res.AgentOutput) == 0 || string(res.AgentOutput) == "null" {
		return nil, nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, res.AgentOutput); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// ReplayAgent returns the agent that plays rec. When its final output came
// from a result.json beside the trace (rec.OutputFrom), the agent says so
// in the run's trace.jsonl (a replay_output event naming the file) and Run
// names the file in run.json (agentOutputFrom).
func ReplayAgent(rec *Recording) env.Agent {
	a := ScriptAgent(rec.Script)
	if rec.OutputFrom == "" {
		return a
	}
	return &replayAgent{Agent: a, outputFrom: rec.OutputFrom}
}

type replayAgent struct {
	env.Agent
	outputFrom string
}

func (a *replayAgent) Run(ctx context.Context, in env.AgentInput) (any, error) {
	in.Log("replay_output", map[string]any{
		"from": a.outputFrom,
		"why":  "the trace has no agent_output event; the final output is the agentOutput of this file",
	})
	return a.Agent.Run(ctx, in)
}

// InlineCalls says the replay is inline, as the script it plays (see
// env.Inline).
func (a *replayAgent) InlineCalls() {}

// OutputFrom names the file the agent's final output was read from.
func (a *replayAgent) OutputFrom() string { return a.outputFrom }

// outputSource is an agent whose final output was read from a file.
type outputSource interface{ OutputFrom() string }
