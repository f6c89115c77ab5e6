package runner

import "sort"

// reservedEvents are the trace event types the runner itself writes; an
// agent's AgentInput.Log cannot use them, so a replay or a reader of the
// trace never mistakes an agent's event for the runner's.
var reservedEvents = map[string]bool{
	"run_start": true, "tool_call": true, "tool_result": true, "agent_output": true,
	"agent_panic": true, "run_end": true, "verifier_result": true, "trace_truncated": true,
}

// log is AgentInput.Log: it appends an agent's event with its fields in
// sorted key order. seq, type and at are the trace's own keys and are
// dropped; a reserved (or empty) type is recorded as agent_log with the
// requested type in "event", which replaces a field of that name.
func (t *Trace) log(typ string, fields map[string]any) {
	if t == nil {
		return
	}
	reserved := reservedEvents[typ] || typ == ""
	keys := make([]string, 0, len(fields))
	for k := range fields {
		if k == "seq" || k == "type" || k == "at" || reserved && k == "event" {
			continue
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	list := make([]field, 0, len(keys)+1)
	if reserved {
		list = append(list, f("event", typ))
		typ = "agent_log"
	}
	for _, k := range keys {
		list = append(list, f(k, fields[k]))
	}
	t.add(typ, list...)
}
