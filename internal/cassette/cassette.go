// Package cassette records a model's answers and replays them, keyed by
// the request: the cassettes of model agents and judges.
//
// A cassette holds the exchanges of one rollout (one run of one case) with
// a model provider's API, in a file of its own under the project's
// .silo/cassettes:
//
//	.silo/cassettes/<env>/<agent>/<task>.jsonl          a byte case's rollout
//	.silo/cassettes/<env>/<agent>/<task>.run-<N>.jsonl  run N of a distribution
//	.silo/cassettes/<env>/judge/<task>.<name>.jsonl     a judge's (Identity.Name)
//
// Each exchange is keyed by a canonical form of what determines the answer:
// the endpoint's path, the request's body with its keys sorted (model,
// messages, tools and their schemas, sampling parameters; never a header, a
// key, a host, a request id or a timestamp: the top-level "user" and
// "metadata" of a body are left out) and the turn, the request's place in
// the rollout. Secrets of the process (internal/secret) are redacted before
// anything is kept, so a key the API echoes reaches no file. The bytes are
// deterministic: two recordings of the same exchanges are the same file,
// and compact: a request stores only the messages it adds to the previous
// one's (see Tape).
//
// Whoever builds a model client sets its Config (a property of
// agent/internal/modelapi.Client, so every caller of modelapi gets it):
// the folder, the Mode and as much of the Identity as it knows. What it
// leaves empty comes from the rollout's context (WithIdentity, set by the
// oracle for each rollout of a case: env, agent, task, run). A judge sets
// Agent "judge" and Name (its check) itself.
//
// In ModeReplay a request with no recorded answer is a *Miss: the model
// was asked something new, located at its turn, with the nearest recorded
// request and what differs from it. ModeAuto re-asks the model from there
// and records the answer; ModeRecord asks the model for everything (the
// rollout's earlier exchanges of the same process are replayed, so the
// repeated runs of a check agree).
package cassette

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// Mode is what a client does with its cassette.
type Mode string

// Modes, as --model-cache takes them.
const (
	ModeOff    Mode = "off"    // no cassette: every request goes to the API
	ModeRecord Mode = "record" // ask the API, record every exchange anew
	ModeReplay Mode = "replay" // never touch the network; a miss ends the rollout
	ModeAuto   Mode = "auto"   // replay what is recorded, ask and record the rest
)

// ParseMode reads a mode; "" is ModeOff.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.TrimSpace(s)); m {
	case "":
		return ModeOff, nil
	case ModeOff, ModeRecord, ModeReplay, ModeAuto:
		return m, nil
	}
	return "", fmt.Errorf("model cache %q is not record, replay, auto or off", s)
}

// Dir is the cassettes' folder in a project.
const Dir = ".silo/cassettes"

// Config is a client's cassette.
type Config struct {
	// Project is the project folder; the cassettes are in its Dir. No
	// file is written outside it.
	Project string
	Mode    Mode
	// Identity names the cassette; its empty fields come from the
	// rollout's context (WithIdentity).
	Identity Identity
}

// Identity names one cassette: the case (environment, agent, task), the
// run of a distribution (0 for a byte case), and Name, which tells apart
// several cassettes of one rollout (a judge's checks).
type Identity struct {
	Env, Agent, Task string
	Run              int
	Name             string
}

// merged is id with its empty fields taken from ctx's.
func (id Identity) merged(ctx context.Context) Identity {
	from, _ := ctx.Value(identityKey{}).(Identity)
	if id.Env == "" {
		id.Env = from.Env
	}
	if id.Agent == "" {
		id.Agent = from.Agent
	}
	if id.Task == "" {
		id.Task = from.Task
	}
	if id.Run == 0 {
		id.Run = from.Run
	}
	if id.Name == "" {
		id.Name = from.Name
	}
	return id
}

type identityKey struct{}

// WithIdentity returns ctx for a rollout whose clients' cassettes are
// named by id (the fields their Config leaves empty).
func WithIdentity(ctx context.Context, id Identity) context.Context {
	return context.WithValue(ctx, identityKey{}, id)
}

// Path is the cassette's file, relative to the project; an identity that
// names no case (no env, agent or task) or names one with a path
// separator or a dot-dot is an error.
func (id Identity) Path() (string, error) {
	for _, part := range []string{id.Env, id.Agent, id.Task} {
		if part == "" || part == "." || part == ".." || strings.ContainsAny(part, `/\`) || strings.Contains(part, "..") {
			return "", fmt.Errorf("a model cassette needs an environment, an agent and a task, each a plain name (got %q/%q/%q)", id.Env, id.Agent, id.Task)
		}
	}
	if strings.ContainsAny(id.Name, `/\`) || strings.Contains(id.Name, "..") {
		return "", fmt.Errorf("cassette name %q: want a plain name", id.Name)
	}
	name := id.Task
	if id.Name != "" {
		name += "." + id.Name
	}
	if id.Run > 0 {
		name += ".run-" + strconv.Itoa(id.Run)
	}
	return filepath.Join(filepath.FromSlash(Dir), id.Env, id.Agent, name+".jsonl"), nil
}
