package env

import (
	"context"
	"encoding/json"
)

// The runner asks a World and an Agent for more than their interfaces
// through the optional interfaces of this file: each is a fast path, so a
// World or an Agent that implements none of them is rolled through a task
// all the same, and its artifacts are the same bytes; what it gives up is
// said at each. A world New made implements every World one; an agent
// Inline made is an InlineAgent.

// CanonicalWorld is a World whose Call outputs are already canonical JSON,
// as JSON.stringify writes it: on one line, members in the order written,
// no HTML escaping. The runner then takes each output as it is
// for the agent, calls.json and the trace. Without it the runner reads
// every output again and rewrites it canonically: one more pass over the
// bytes, and a copy, for each call.
type CanonicalWorld interface {
	World
	CanonicalOutputs()
}

// ShallowWorld is a World that knows, from its state's type, whether the
// JSON State returns is nested at most safeio.MaxDepth deep. When
// ShallowState reports true the runner does not scan the final state for
// a nesting no artifact could hold. Without it (or when it reports false)
// the runner scans the final state's bytes once per rollout.
type ShallowWorld interface {
	World
	ShallowState() bool
}

// SpecWorld is a World that lends the specs of its tools by name: the
// spec ToolSpec returns is the world's own, which the runner reads and
// never changes. The runner then looks up each call's tool there. Without
// it the runner copies the list Tools returns at the start of every
// rollout (an agent may change the list it is given) and, for a long
// list, indexes it at the first call.
type SpecWorld interface {
	World
	ToolSpec(name string) (ToolSpec, bool)
}

// InlineWorld is a World that can run a call on the caller's goroutine.
// The runner uses it for an InlineAgent only: each of that agent's calls
// then runs where the agent makes it, instead of being handed to a
// goroutine of its own and back (two wake-ups a call). CallHere is Call
// without the hand-over: it returns when the tool does, whatever ctx. A
// caller that stops waiting (the rollout is over) gives the call up with
// Abandon, from another goroutine; the world then keeps the state from
// before the call, refuses calls from then on, and Abandon returns the
// call's tool_abandoned error, or nil when no tool was running. Without
// InlineWorld every call goes through World.Call.
type InlineWorld interface {
	World
	CallHere(ctx context.Context, name string, input json.RawMessage) (json.RawMessage, error)
	Abandon() error
}

// ReleasingWorld is a World that takes back, once the runner has read the
// final state for the diff and the verifier, the buffer State wrote it in,
// for the rollouts to come. The runner calls Release when the rollout is
// done with the world, and reads nothing of it afterwards. Without it the
// final state's bytes are left to the garbage collector, and each rollout
// allocates its own.
type ReleasingWorld interface {
	World
	Release()
}

// InlineAgent is an Agent that calls tools from its own goroutine only and
// holds nothing a tool that never returns would leave behind (see Inline,
// which makes one). With an InlineWorld the runner runs each of its calls
// on the agent's goroutine. Without the mark every call is handed to the
// world's own goroutine, which costs two wake-ups a call, and a call still
// running at the rollout's end returns a tool_abandoned error to the agent.
type InlineAgent interface {
	Agent
	InlineCalls()
}

// A world New made takes every fast path.
var (
	_ CanonicalWorld = (*world[struct{}])(nil)
	_ ShallowWorld   = (*world[struct{}])(nil)
	_ SpecWorld      = (*world[struct{}])(nil)
	_ InlineWorld    = (*world[struct{}])(nil)
	_ ReleasingWorld = (*world[struct{}])(nil)
	_ InlineAgent    = inlineAgent{}
)
