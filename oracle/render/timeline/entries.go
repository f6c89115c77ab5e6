package timeline

import (
	"encoding/json"
	"fmt"
	"github.com/agent-oracle/oracle/internal/safetext"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/agent-oracle/oracle/runner"
)

// maxEntries bounds the timeline: past it the events are counted, not
// shown.
const maxEntries = 2000

// answerPreview is how much of the answer the timeline shows.
const answerPreview = 400

// entry is one step of the timeline: a tool call with its answer, a model
// request or response, the start, the answer, the end, or any other event
// of the trace.
type entry struct {
	ID    string
	Seq   int
	Kind  string // call, model, answer, start, end, grade, log, other
	Num   string // #3 for the third call
	Title string
	Badge string // what went wrong, in words
	Bad   bool
	Meta  []string
	Parts []part
}

// part is one labelled value of an entry: a call's input, its output.
type part struct {
	Label string
	Class string
	Value shown
}

// timeline builds the entries of a rollout: from its trace when it has
// one (with times, durations and the agent's other events), else from
// calls.json.
type timeline struct {
	r       *Rollout
	cut     *cutter
	entries []entry
	omitted int
	start   time.Time
	calls   int // call entries so far
	last    int // index after the last call entry
}

func (t *timeline) add(e entry) {
	if len(t.entries) >= maxEntries {
		t.omitted++
		return
	}
	e.ID = "e-" + strconv.Itoa(len(t.entries)+1)
	t.entries = append(t.entries, e)
}

// file names an artifact file as the source has it (TASK-002.trace.jsonl
// for a case).
func (t *timeline) file(name string) string {
	if p, ok := t.r.Source.Paths[name]; ok {
		return filepath.Base(p)
	}
	return name
}

func (t *timeline) build() {
	switch {
	case t.r.HasTrace:
		t.fromTrace()
	case t.r.HasCalls:
		for i, c := range t.r.Calls {
			t.addCall(t.callFromFile(i, c))
		}
	}
}

func (t *timeline) fromTrace() {
	trace := t.r.Trace
	used := make([]bool, len(trace))
	byID := map[string]int{}
	for i, ev := range trace {
		if ev.Type == "tool_result" {
			if id := string(ev.Fields["callId"]); id != "" {
				if _, dup := byID[id]; !dup {
					byID[id] = i
				}
			}
		}
	}
	for i := range trace {
		ev := &trace[i]
		if len(t.entries) >= maxEntries {
			// past what the page shows, events are counted, not read
			if !used[i] {
				t.omitted++
			}
			continue
		}
		if t.start.IsZero() {
			t.start, _ = time.Parse(time.RFC3339Nano, ev.At)
		}
		switch {
		case ev.Bad != "":
			t.add(entry{Kind: "other", Title: fmt.Sprintf("line %d of the trace is not a JSON object", ev.Line), Bad: true,
				Parts: []part{{Label: "line", Value: t.cut.text(ev.Bad, t.where(ev))}}})
		case ev.Type == "tool_call":
			res := -1
			if id := string(ev.Fields["callId"]); id != "" {
				if j, ok := byID[id]; ok && !used[j] {
					res = j
				}
			} else {
				res = nextResult(trace, i, used)
			}
			var result *Event
			if res >= 0 {
				used[res] = true
				result = &trace[res]
			}
			t.addCall(t.callFromTrace(ev, result))
		case ev.Type == "tool_result":
			if !used[i] {
				used[i] = true
				t.addCall(t.callFromTrace(nil, ev))
			}
		default:
			t.add(t.event(ev))
		}
	}
	// calls the trace does not hold (a call refused once the budget was
	// used up is in calls.json only) go after the last call
	if t.r.HasCalls && t.calls < len(t.r.Calls) && t.omitted == 0 {
		tail := append([]entry(nil), t.entries[t.last:]...)
		t.entries = t.entries[:t.last]
		for i := t.calls; i < len(t.r.Calls); i++ {
			e := t.callFromFile(i, t.r.Calls[i])
			e.Meta = append(e.Meta, "in calls.json only: the trace has no event of it")
			t.addCall(e)
		}
		for _, e := range tail {
			t.entries = append(t.entries, e)
		}
		for i := range t.entries {
			t.entries[i].ID = "e-" + strconv.Itoa(i+1)
		}
	}
}

// nextResult is the first unused tool_result after trace[i] without a call
// id (the original runner's trace pairs them by order).
func nextResult(trace []Event, i int, used []bool) int {
	for j := i + 1; j < len(trace); j++ {
		if trace[j].Type == "tool_result" && !used[j] && trace[j].Fields["callId"] == nil {
			return j
		}
		if trace[j].Type == "tool_call" {
			break
		}
	}
	return -1
}

func (t *timeline) addCall(e entry) {
	t.calls++
	t.add(e)
	t.last = len(t.entries)
}

func (t *timeline) where(ev *Event) string {
	return fmt.Sprintf("%s (line %d)", t.file(runner.TraceFile), ev.Line)
}

// offset says when an event happened, from the trace's first event.
func (t *timeline) offset(ev *Event) string {
	at, err := time.Parse(time.RFC3339Nano, ev.At)
	if err != nil || t.start.IsZero() {
		return ""
	}
	return "at +" + at.Sub(t.start).Round(time.Millisecond).String()
}

// callFromTrace is the entry of a tool call and its result as the trace
// has them; either may be missing.
func (t *timeline) callFromTrace(call, result *Event) entry {
	ev := call
	if ev == nil {
		ev = result
	}
	e := entry{Kind: "call", Seq: ev.Seq, Title: ev.str("tool")}
	if n, ok := ev.num("callId"); ok {
		e.Num = "#" + strconv.FormatFloat(n, 'f', -1, 64)
	} else {
		e.Num = "#" + strconv.Itoa(t.calls+1)
	}
	if off := t.offset(ev); off != "" {
		e.Meta = append(e.Meta, off)
	}
	if call != nil {
		e.Parts = append(e.Parts, part{Label: "input", Class: "input", Value: t.cut.json(call.Fields["input"], t.where(call))})
	} else {
		e.Meta = append(e.Meta, "the trace has no tool_call event of it")
	}
	if result == nil {
		e.Badge, e.Bad = "no result: the rollout ended before the call returned", true
		return e
	}
	if d, ok := result.num("durationMs"); ok {
		e.Meta = append([]string{strconv.FormatFloat(d, 'f', -1, 64) + " ms"}, e.Meta...)
	}
	var isErr bool
	json.Unmarshal(result.Fields["isError"], &isErr)
	t.result(&e, result.Fields["output"], isErr, t.where(result))
	return e
}

// callFromFile is the entry of the i-th call of calls.json.
func (t *timeline) callFromFile(i int, c runner.Call) entry {
	e := entry{Kind: "call", Num: "#" + strconv.Itoa(i+1), Title: c.Tool}
	where := fmt.Sprintf("%s (call %d)", t.file(runner.CallsFile), i+1)
	e.Parts = append(e.Parts, part{Label: "input", Class: "input", Value: t.cut.json(c.Input, where)})
	if c.Error != nil {
		t.result(&e, c.Error, true, where)
	} else {
		t.result(&e, c.Output, false, where)
	}
	return e
}

// result adds a call's output, or its tool error, to e.
func (t *timeline) result(e *entry, out json.RawMessage, isErr bool, where string) {
	if !isErr {
		e.Parts = append(e.Parts, part{Label: "output", Class: "output", Value: t.cut.json(out, where)})
		return
	}
	var te struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}
	json.Unmarshal(out, &te)
	e.Bad, e.Badge = true, "tool error"
	if te.Code != "" {
		e.Badge += ": " + te.Code
	}
	e.Parts = append(e.Parts, part{Label: "tool error", Class: "error", Value: t.cut.json(out, where)})
}

// event is the entry of any event but a tool call's.
func (t *timeline) event(ev *Event) entry {
	b := &eventEntry{t: t, ev: ev, e: entry{Seq: ev.Seq, Kind: "other", Title: safetext.String(ev.Type)}}
	e := &b.e
	if e.Title == "" {
		e.Title = "(an event with no type)"
	}
	if off := t.offset(ev); off != "" {
		e.Meta = append(e.Meta, off)
	}
	b.where = t.where(ev)
	switch ev.Type {
	case "run_start":
		b.runStart()
	case "agent_output":
		e.Kind, e.Title = "answer", "answer"
		// the answer is shown in full below: here its beginning
		e.Parts = append(e.Parts, part{Label: "answer", Class: "output", Value: t.cut.preview(ev.Fields["output"], answerPreview, "“The answer” below")})
	case "run_end":
		b.runEnd()
	case "verifier_result":
		e.Kind, e.Title = "grade", "graded"
		b.meta("verdict %s", "verdict")
		b.meta("reward %s", "reward")
		b.meta("verifier %s", "verifierId")
	case "model_request":
		b.modelRequest()
	case "model_response":
		b.modelResponse()
	case "agent_stderr":
		e.Kind, e.Title = "log", "agent's stderr"
		b.meta("%s bytes dropped", "droppedBytes")
		b.val("stderr", "stderr")
	case "agent_panic":
		e.Kind, e.Title, e.Bad, e.Badge = "log", "agent panicked", true, "panic"
		b.val("panic", "panic")
		b.val("stack", "stack")
	default:
		b.otherEvent()
	}
	return b.e
}

// eventEntry is the entry of one event as event builds it.
type eventEntry struct {
	t     *timeline
	ev    *Event
	where string // where the event is, for what is cut
	e     entry
}

// val adds the event's field key as a part labelled label, unless it is
// absent or null.
func (b *eventEntry) val(label, key string) {
	if raw, ok := b.ev.Fields[key]; ok && string(raw) != "null" {
		b.e.Parts = append(b.e.Parts, part{Label: label, Value: b.t.cut.json(raw, b.where)})
	}
}

// meta adds the event's field key, unquoted, to the entry's meta through
// format, unless it is absent or null.
func (b *eventEntry) meta(format, key string) {
	if raw, ok := b.ev.Fields[key]; ok && string(raw) != "null" {
		b.e.Meta = append(b.e.Meta, fmt.Sprintf(format, strings.Trim(string(raw), `"`)))
	}
}

// runStart is the entry of run_start: the task, the agent, its budget and
// the tools offered.
func (b *eventEntry) runStart() {
	e, ev := &b.e, b.ev
	e.Kind, e.Title = "start", "start"
	var task struct{ ID, Title string }
	json.Unmarshal(ev.Fields["task"], &task)
	var cfg runner.RunConfig
	json.Unmarshal(ev.Fields["config"], &cfg)
	if task.ID != "" {
		e.Meta = append(e.Meta, "task "+task.ID)
	}
	if cfg.Agent != "" {
		e.Meta = append(e.Meta, "agent "+cfg.Agent)
	}
	if cfg.MaxToolCalls > 0 {
		e.Meta = append(e.Meta, fmt.Sprintf("budget %d calls, %s", cfg.MaxToolCalls, (time.Duration(cfg.TimeoutMs)*time.Millisecond).String()))
	}
	if tools := toolList(ev.Fields["tools"]); tools != "" {
		e.Parts = append(e.Parts, part{Label: "tools offered", Value: b.t.cut.text(tools, b.where)})
	}
}

// runEnd is the entry of run_end: why the rollout ended, its calls and
// errors, how long it took.
func (b *eventEntry) runEnd() {
	e, ev := &b.e, b.ev
	e.Kind, e.Title = "end", "end"
	switch reason := ev.str("terminationReason"); reason {
	case runner.Completed:
		e.Meta = append(e.Meta, reason)
	case "":
		e.Bad, e.Badge = true, "ended with no termination reason"
	default:
		e.Bad, e.Badge = true, "ended: "+reason
	}
	if n, ok := ev.num("toolCalls"); ok {
		errs, _ := ev.num("toolErrors")
		e.Meta = append(e.Meta, fmt.Sprintf("%g %s, %g %s", n, plural(n, "tool call", "tool calls"), errs, plural(errs, "error", "errors")))
	}
	b.meta("took %s ms", "durationMs")
	b.val("error", "error")
}

// model makes the entry a model step with title, its turn and attempt.
func (b *eventEntry) model(title string) {
	b.e.Kind, b.e.Title = "model", title
	b.meta("turn %s", "turn")
	b.meta("attempt %s", "attempt")
}

// modelRequest is the entry of model_request: its turn, attempt and
// messages, the URL and the request.
func (b *eventEntry) modelRequest() {
	e, ev := &b.e, b.ev
	b.model("model request")
	// a later request logs only the messages it adds, the first of
	// them message messagesFrom of the conversation
	var body struct {
		From     *int              `json:"messagesFrom"`
		Messages []json.RawMessage `json:"messages"`
	}
	switch {
	case json.Unmarshal(ev.Fields["body"], &body) != nil || body.Messages == nil:
	case body.From != nil && *body.From >= 0:
		e.Meta = append(e.Meta, fmt.Sprintf("%d messages, %d new", *body.From+len(body.Messages), len(body.Messages)))
	default:
		e.Meta = append(e.Meta, fmt.Sprintf("%d messages", len(body.Messages)))
	}
	b.val("url", "url")
	b.val("request", "body")
}

// modelResponse is the entry of model_response: its turn, attempt and
// status, what the model says and calls for, and the response.
func (b *eventEntry) modelResponse() {
	e, ev := &b.e, b.ev
	b.model("model response")
	if st, ok := ev.num("status"); ok {
		e.Meta = append(e.Meta, fmt.Sprintf("status %g", st))
		if st != 200 {
			e.Bad, e.Badge = true, fmt.Sprintf("status %g", st)
		}
	}
	if _, ok := ev.Fields["error"]; ok {
		e.Bad = true
		if e.Badge == "" {
			e.Badge = "request failed"
		}
		b.val("error", "error")
	}
	says, asks := modelSays(ev.Fields["body"])
	if says != "" {
		e.Parts = append(e.Parts, part{Label: "says", Class: "output", Value: b.t.cut.text(says, b.where)})
	}
	if len(asks) > 0 {
		e.Parts = append(e.Parts, part{Label: "calls for", Value: b.t.cut.text(strings.Join(asks, ", "), b.where)})
	}
	b.val("response", "body")
}

// otherEvent is the entry of an agent_log or of an event the timeline
// does not know: every field, by name.
func (b *eventEntry) otherEvent() {
	ev := b.ev
	if ev.Type == "agent_log" {
		b.e.Kind, b.e.Title = "log", "agent's event "+safetext.String(ev.str("event"))
	}
	// the names are the agent's: shown escaped (ESC, U+202E, U+200B …), as
	// the values are
	keys := make([]string, 0, len(ev.Fields))
	for k := range ev.Fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		b.val(safetext.String(k), k)
	}
}

// toolList lists the tools of run_start, one a line: name, description.
func toolList(raw json.RawMessage) string {
	var tools []struct{ Name, Description string }
	if json.Unmarshal(raw, &tools) != nil || len(tools) == 0 {
		return ""
	}
	var b strings.Builder
	for _, tool := range tools {
		fmt.Fprintf(&b, "%s: %s\n", tool.Name, tool.Description)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// modelSays reads a model's answer as the chat completions API (OpenAI)
// or the messages API (Anthropic) writes it: its text and the tools it
// calls for. Anything else says nothing; the response is shown whole.
func modelSays(body json.RawMessage) (string, []string) {
	var chat struct {
		Choices []struct {
			Message struct {
				Content   json.RawMessage `json:"content"`
				ToolCalls []struct {
					Function struct {
						Name string `json:"name"`
					} `json:"function"`
				} `json:"tool_calls"`
			} `json:"message"`
		} `json:"choices"`
	}
	var says []string
	var asks []string
	if json.Unmarshal(body, &chat) == nil && len(chat.Choices) > 0 {
		for _, c := range chat.Choices {
			var s string
			if json.Unmarshal(c.Message.Content, &s) == nil && s != "" {
				says = append(says, s)
			}
			for _, tc := range c.Message.ToolCalls {
				asks = append(asks, tc.Function.Name)
			}
		}
		return strings.Join(says, "\n"), asks
	}
	var msg struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
			Name string `json:"name"`
		} `json:"content"`
	}
	if json.Unmarshal(body, &msg) == nil {
		for _, b := range msg.Content {
			switch b.Type {
			case "text":
				says = append(says, b.Text)
			case "tool_use":
				asks = append(asks, b.Name)
			}
		}
	}
	return strings.Join(says, "\n"), asks
}

func plural(n float64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
