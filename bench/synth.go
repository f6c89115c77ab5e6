// Package bench holds the project's performance benchmarks (run them with
// make bench) and the synthetic environment they measure: a world whose
// task count and state size are parameters, with its tasks generated in
// memory.
package bench

import (
	"context"
	"fmt"
	"strings"

	"github.com/agent-oracle/oracle/env"
)

// State is the synthetic world: a clock and a collection of entities of
// nine fields each.
type State struct {
	Now      string   `json:"now"`
	Entities []Entity `json:"entities"`
}

// Entity is one member of the collection.
type Entity struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	OwnerID     string   `json:"ownerId"`
	Status      string   `json:"status"`
	Amount      Money    `json:"amount"`
	Tags        []string `json:"tags"`
	Region      string   `json:"region"`
	CreatedDate string   `json:"createdDate"`
	Score       int      `json:"score"`
}

// Money is an amount in a currency.
type Money struct {
	Amount   float64 `json:"amount"`
	Currency string  `json:"currency"`
}

// Entities returns n entities with ids E-000000 upwards.
func Entities(n int) []Entity {
	out := make([]Entity, n)
	for i := range out {
		out[i] = Entity{ID: EntityID(i), Name: fmt.Sprintf("Entity %d", i), OwnerID: fmt.Sprintf("USR-%03d", i%50),
			Status: "open", Amount: Money{Amount: float64(1000 + i), Currency: "USD"}, Tags: []string{"a", "b"},
			Region: []string{"emea", "amer", "apac"}[i%3], CreatedDate: "2026-01-02", Score: i % 100}
	}
	return out
}

// EntityID is the id of the i-th entity.
func EntityID(i int) string { return fmt.Sprintf("E-%06d", i) }

type idIn struct {
	ID string `json:"id"`
}

type statusIn struct {
	ID     string `json:"id"`
	Status string `json:"status"`
}

func find(s *State, id string) (int, error) {
	// the entities are sorted by id
	lo, hi := 0, len(s.Entities)
	for lo < hi {
		mid := (lo + hi) / 2
		if s.Entities[mid].ID < id {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo == len(s.Entities) || s.Entities[lo].ID != id {
		return 0, env.Errorf("not_found", "no entity %s", id)
	}
	return lo, nil
}

const (
	idSchema     = `{"type":"object","properties":{"id":{"type":"string"}},"required":["id"],"additionalProperties":false}`
	statusSchema = `{"type":"object","properties":{"id":{"type":"string"},"status":{"type":"string","enum":["open","won","lost"]}},"required":["id","status"],"additionalProperties":false}`
)

// Tools are a read tool and a write tool on one entity.
func Tools() []env.Tool[State] {
	return []env.Tool[State]{
		{Name: "get_entity", Description: "Returns one entity.", InputSchema: idSchema, ReadOnly: true,
			Run: env.Typed(func(_ context.Context, s *State, in idIn) (any, error) {
				i, err := find(s, in.ID)
				if err != nil {
					return nil, err
				}
				return s.Entities[i], nil
			})},
		{Name: "set_status", Description: "Sets an entity's status.", InputSchema: statusSchema, Writes: []string{"entities[id]"},
			Run: env.Typed(func(_ context.Context, s *State, in statusIn) (any, error) {
				i, err := find(s, in.ID)
				if err != nil {
					return nil, err
				}
				s.Entities[i].Status = in.Status
				return s.Entities[i], nil
			})},
	}
}

// Solver wins the entity its task names: one read, one write. It is inline
// (env.Inline), as the reference solvers are.
var Solver = env.Inline(env.AgentFunc(func(ctx context.Context, in env.AgentInput) (any, error) {
	var task struct{ Entity string }
	var ok bool
	if task.Entity, ok = strings.CutPrefix(in.Task, "Win entity "); !ok {
		return nil, fmt.Errorf("not a task of the synthetic environment: %q", in.Task)
	}
	if r := in.Call(ctx, "get_entity", map[string]string{"id": task.Entity}); r.IsError {
		return nil, fmt.Errorf("get_entity: %s", r.Output)
	}
	if r := in.Call(ctx, "set_status", map[string]string{"id": task.Entity, "status": "won"}); r.IsError {
		return nil, fmt.Errorf("set_status: %s", r.Output)
	}
	return "won " + task.Entity, nil
}))

// Environment returns the synthetic environment "synth" with tasks tasks
// (task i asks to win entity i mod entities) and a state of entities
// entities (at least one).
func Environment(tasks, entities int) (env.Environment, error) {
	entities = max(entities, 1)
	seed := &State{Now: "2026-03-16T09:00:00Z", Entities: Entities(entities)}
	return env.New(env.Definition[State]{
		Name:        "synth",
		Description: "A synthetic world for benchmarks.",
		TaskFiles:   taskFS{tasks: tasks, entities: entities},
		Seed:        func(env.Task) (*State, error) { return seed, nil },
		Tools:       Tools(),
		Verifiers: []env.Verifier[State]{{ID: "VER-001", TaskID: "TASK-000001", Name: "the entity is won",
			Check: func(final, initial *State, c env.VerifyContext) []env.CheckResult {
				won := 0
				for i := range final.Entities {
					if final.Entities[i].Status == "won" && initial.Entities[i].Status != "won" {
						won++
					}
				}
				return []env.CheckResult{env.Check("one entity won", won == 1, fmt.Sprintf("%d won", won))}
			}}},
		Agents: map[string]env.Agent{"solver": Solver},
	})
}
