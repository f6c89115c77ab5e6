package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing/fstest"
	"time"

	"github.com/agent-oracle/oracle/env"
)

// stampState is the state of "stamp", an environment that wraps code it
// does not control: its tool stamps each order with a random id and the
// wall-clock time, and the agent and the verifier quote the id.
type stampState struct {
	Orders []stampOrder `json:"orders"`
}

type stampOrder struct {
	ID        string `json:"id"`
	Item      string `json:"item"`
	CreatedAt any    `json:"createdAt"`
}

// stampEnvironment is "stamp"; mode changes what its tool does, as a change
// to its code would:
//
//	1      as written
//	item   the order is for a gadget, not a widget (a field no rule redacts)
//	epoch  createdAt is a number of seconds, not a time string
//	code   as written, and the environment declares its redactions in code
//	shape  the agent creates one order in one rollout, two in the next
func stampEnvironment(mode string) (env.Environment, error) {
	d := env.Definition[stampState]{
		Name: "stamp",
		TaskFiles: fstest.MapFS{"tasks/TASK-001.json": {Data: []byte(
			`{"id":"TASK-001","title":"Order a widget","instruction":"Create an order for one widget.","verifierId":"VER-001"}`)}},
		NewState: func(env.Task) (*stampState, error) { return &stampState{Orders: []stampOrder{}}, nil },
		Tools: []env.Tool[stampState]{{Name: "create_order", Description: "Creates an order.", InputSchema: `{"type":"object"}`,
			Writes: []string{"orders"},
			Run: func(_ context.Context, s *stampState, _ json.RawMessage) (any, error) {
				o := stampOrder{ID: uuid(), Item: "widget", CreatedAt: time.Now().UTC().Format(time.RFC3339Nano)}
				switch mode {
				case "item":
					o.Item = "gadget"
				case "epoch":
					o.CreatedAt = time.Now().Unix()
				}
				s.Orders = append(s.Orders, o)
				return o, nil
			}}},
		Verifiers: []env.Verifier[stampState]{{ID: "VER-001", TaskID: "TASK-001", Name: "ordered",
			Check: func(final, _ *stampState, _ env.VerifyContext) []env.CheckResult {
				if len(final.Orders) != 1 {
					return []env.CheckResult{env.Check("one order", false, fmt.Sprint(len(final.Orders), " orders"))}
				}
				o := final.Orders[0]
				return []env.CheckResult{env.Check("one order", true, fmt.Sprintf("order %s for a %s", o.ID, o.Item))}
			}}},
		Agents: map[string]env.Agent{"solver": env.AgentFunc(func(ctx context.Context, in env.AgentInput) (any, error) {
			if mode == "shape" && stampRollouts.Add(1)%2 == 0 {
				in.Call(ctx, "create_order", json.RawMessage(`{"item":"widget"}`))
			}
			r := in.Call(ctx, "create_order", json.RawMessage(`{"item":"widget"}`))
			var o stampOrder
			if r.IsError || json.Unmarshal(r.Output, &o) != nil {
				return "the tool failed", nil
			}
			return fmt.Sprintf("Created order %s at %v.", o.ID, o.CreatedAt), nil
		})},
	}
	if mode == "code" {
		d.Redact = []env.Redaction{env.RedactWhole("calls", "/*/output/id")}
	}
	return env.New(d)
}

// stampRollouts counts the rollouts of "stamp" in mode shape.
var stampRollouts atomic.Int64

// uuid is a random (version 4) UUID.
func uuid() string {
	var b [16]byte
	rand.Read(b[:])
	b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
