package cassette

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/agent-oracle/oracle/internal/canon"
)

// Miss is a request a cassette holds no answer to: the model was asked
// something new. It is a change of its own kind, neither trouble with the
// infrastructure nor the agent's failure.
type Miss struct {
	Turn int
	// What says what differs from the nearest recorded request, e.g.
	// "the tool result of list_deals differs at /results/2/amount:
	// 200000 → 290000".
	What string
	// Request is the canonical request asked; Nearest the nearest
	// recorded one (nil when the cassette holds none).
	Request, Nearest json.RawMessage
	// Cassette is the file, relative to the project.
	Cassette string
}

func (m *Miss) Error() string {
	return fmt.Sprintf("the model was asked something new at turn %d: %s", m.Turn, m.What)
}

// missOf is the miss of req at turn against the tape's exchanges.
func missOf(t *Tape, rel string, turn int, endpoint string, key []byte, req map[string]any) *Miss {
	m := &Miss{Turn: turn, Request: key, Cassette: rel}
	near := nearest(t.exchanges, turn, endpoint, req)
	switch {
	case near == nil && len(t.exchanges) == 0:
		m.What = "the cassette " + rel + " holds no exchange (record it with --model-cache record)"
		return m
	case near == nil:
		last := t.exchanges[len(t.exchanges)-1].Turn
		m.What = fmt.Sprintf("the recorded conversation ended at turn %d", last)
		if prev := at(t.exchanges, turn-1); prev != nil {
			m.Nearest = prev.Request
		}
		return m
	}
	m.Nearest = near.Request
	m.What = describe(near.req, req)
	if near.Endpoint != endpoint {
		m.What = fmt.Sprintf("the endpoint differs: %s → %s", near.Endpoint, endpoint)
	}
	return m
}

// at is the exchange recorded at turn, or nil.
func at(exchanges []Exchange, turn int) *Exchange {
	for i := range exchanges {
		if exchanges[i].Turn == turn {
			return &exchanges[i]
		}
	}
	return nil
}

// nearest is the recorded request of the same turn, or nil when the turn
// has none. (A rollout asks once a turn; a cassette keeps one
// conversation.)
func nearest(exchanges []Exchange, turn int, endpoint string, req map[string]any) *Exchange {
	var best *Exchange
	bestScore := -1
	for i := range exchanges {
		e := &exchanges[i]
		if e.Turn != turn {
			continue
		}
		msgs, _ := req["messages"].([]any)
		score := commonPrefix(e.messages(), msgs)
		if e.Endpoint == endpoint {
			score += 1 << 20
		}
		if score > bestScore {
			best, bestScore = e, score
		}
	}
	return best
}

// describe says what first differs from the recorded request was to the
// request now: a sampling parameter or the model, a tool or its schema, a
// message (a tool's result by the tool's name and the JSON path in it).
func describe(was, now map[string]any) string {
	keys := slices.Sorted(maps.Keys(union(was, now)))
	// the fields that say how to answer first, the conversation last
	for _, k := range keys {
		if k == "messages" || k == "tools" || k == "system" {
			continue
		}
		if !equal(was[k], now[k]) {
			return fmt.Sprintf("the request's %s differs: %s → %s", k, show(was[k]), show(now[k]))
		}
	}
	if !equal(was["tools"], now["tools"]) {
		return describeTools(was["tools"], now["tools"])
	}
	if !equal(was["system"], now["system"]) {
		return "the system prompt differs" + firstDiff(was["system"], now["system"], "")
	}
	a, _ := was["messages"].([]any)
	b, _ := now["messages"].([]any)
	i := commonPrefix(a, b)
	switch {
	case i == len(a) && i == len(b):
		return "the request differs"
	case i >= len(a):
		return fmt.Sprintf("message %d (%s) is new", i+1, role(b[i]))
	case i >= len(b):
		return fmt.Sprintf("message %d (%s) is gone", i+1, role(a[i]))
	}
	return describeMessage(b[:i], a[i], b[i], i)
}

func union(a, b map[string]any) map[string]any {
	out := maps.Clone(a)
	if out == nil {
		out = map[string]any{}
	}
	maps.Copy(out, b)
	return out
}

func role(m any) string {
	r, _ := field(m, "role").(string)
	return cmpOr(r, "message")
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func field(v any, name string) any {
	m, _ := v.(map[string]any)
	return m[name]
}

// describeTools says which tool is new, gone or changed.
func describeTools(was, now any) string {
	byName := func(v any) map[string]any {
		out := map[string]any{}
		list, _ := v.([]any)
		for i, t := range list {
			name := toolName(t)
			if name == "" {
				name = "#" + strconv.Itoa(i+1)
			}
			out[name] = t
		}
		return out
	}
	a, b := byName(was), byName(now)
	for _, name := range slices.Sorted(maps.Keys(union(a, b))) {
		switch x, y := a[name], b[name]; {
		case x == nil:
			return "the tool " + name + " is new"
		case y == nil:
			return "the tool " + name + " is gone"
		case !equal(x, y):
			return "the tool " + name + " differs" + firstDiff(x, y, "")
		}
	}
	return "the order of the tools differs"
}

// toolName is the name of a tool of either API: {"name"} or
// {"function":{"name"}}.
func toolName(t any) string {
	if n, ok := field(t, "name").(string); ok {
		return n
	}
	n, _ := field(field(t, "function"), "name").(string)
	return n
}

// describeMessage says what differs in message i, given the messages
// before it: a tool's result (OpenAI's role "tool", Anthropic's
// tool_result block) by the tool's name, the task, or the message.
func describeMessage(before []any, was, now any, i int) string {
	if r := role(now); r == "tool" {
		id, _ := field(now, "tool_call_id").(string)
		return "the tool result of " + toolCalled(before, id) + " differs" + firstDiff(parsed(field(was, "content")), parsed(field(now, "content")), "")
	}
	// Anthropic: a user message of tool_result blocks
	wb, _ := field(was, "content").([]any)
	nb, _ := field(now, "content").([]any)
	for j := 0; j < len(wb) && j < len(nb); j++ {
		if equal(wb[j], nb[j]) {
			continue
		}
		if field(nb[j], "type") == "tool_result" {
			id, _ := field(nb[j], "tool_use_id").(string)
			return "the tool result of " + toolCalled(before, id) + " differs" + firstDiff(parsed(field(wb[j], "content")), parsed(field(nb[j], "content")), "")
		}
	}
	what := fmt.Sprintf("message %d (%s)", i+1, role(now))
	if role(now) == "user" && !hasRole(before, "user") {
		what = "the task"
	}
	return what + " differs" + firstDiff(was, now, "")
}

func hasRole(msgs []any, r string) bool {
	for _, m := range msgs {
		if role(m) == r {
			return true
		}
	}
	return false
}

// toolCalled is the name of the tool the call id names in the assistant
// messages before, or "a tool" when none does.
func toolCalled(before []any, id string) string {
	for k := len(before) - 1; k >= 0; k-- {
		m := before[k]
		calls, _ := field(m, "tool_calls").([]any) // OpenAI
		for _, c := range calls {
			if field(c, "id") == id {
				if n, ok := field(field(c, "function"), "name").(string); ok {
					return n
				}
			}
		}
		blocks, _ := field(m, "content").([]any) // Anthropic
		for _, b := range blocks {
			if field(b, "type") == "tool_use" && field(b, "id") == id {
				if n, ok := field(b, "name").(string); ok {
					return n
				}
			}
		}
	}
	return "a tool"
}

// parsed is a tool's result: the JSON its text holds, or the text.
func parsed(v any) any {
	s, ok := v.(string)
	if !ok {
		return v
	}
	if d, err := canon.Decode([]byte(s)); err == nil {
		return d
	}
	return s
}

// firstDiff is " at PATH: WAS → NOW" for the first place (a JSON Pointer)
// where a and b differ, "" at the root when both are strings shown
// whole... or ": WAS → NOW" at the root.
func firstDiff(a, b any, path string) string {
	ma, aok := a.(map[string]any)
	mb, bok := b.(map[string]any)
	if aok && bok {
		for _, k := range slices.Sorted(maps.Keys(union(ma, mb))) {
			x, inA := ma[k]
			y, inB := mb[k]
			p := path + "/" + pointerEscape(k)
			switch {
			case !inA:
				return " at " + p + ": (absent) → " + show(y)
			case !inB:
				return " at " + p + ": " + show(x) + " → (absent)"
			case !equal(x, y):
				return firstDiff(x, y, p)
			}
		}
	}
	la, aok := a.([]any)
	lb, bok := b.([]any)
	if aok && bok {
		for k := 0; k < len(la) || k < len(lb); k++ {
			p := path + "/" + strconv.Itoa(k)
			switch {
			case k >= len(la):
				return " at " + p + ": (absent) → " + show(lb[k])
			case k >= len(lb):
				return " at " + p + ": " + show(la[k]) + " → (absent)"
			case !equal(la[k], lb[k]):
				return firstDiff(la[k], lb[k], p)
			}
		}
	}
	if path == "" {
		return ": " + show(a) + " → " + show(b)
	}
	return " at " + path + ": " + show(a) + " → " + show(b)
}

func pointerEscape(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

// show is a value as a miss shows it: compact JSON, shortened.
func show(v any) string {
	if v == nil {
		return "(absent)"
	}
	b, err := canon.Compact(v)
	if err != nil {
		return "?"
	}
	s := string(b)
	if r := []rune(s); len(r) > 80 {
		s = string(r[:77]) + "…"
	}
	return s
}
