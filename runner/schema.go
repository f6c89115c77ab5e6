package runner

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/internal/inputschema"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemas caches compiled input schemas by their text, so an environment's
// schemas are compiled once per process, not once per rollout. atSchemas
// finds them again by the address of the text, which an environment hands
// out unchanged with every rollout's tools, without hashing the text on
// every call; the text is compared, so a schema whose bytes changed at that
// address is looked up by its text again.
var (
	schemas   sync.Map // string → *compiled
	atSchemas sync.Map // *byte → *compiled
	// atCount bounds atSchemas: a process that makes environments over and
	// over (each with schema bytes of its own) finds the later ones by text
	atCount atomic.Int64
)

const maxAtSchemas = 4096

type compiled struct {
	text   string
	once   sync.Once
	schema *jsonschema.Schema
	err    error
}

func compileSchema(text []byte) (*jsonschema.Schema, error) {
	var at *byte
	if len(text) > 0 {
		at = &text[0]
		if v, ok := atSchemas.Load(at); ok {
			if c := v.(*compiled); c.text == string(text) {
				return c.get()
			}
		}
	}
	v, _ := schemas.LoadOrStore(string(text), &compiled{text: string(text)})
	c := v.(*compiled)
	if at != nil && atCount.Add(1) <= maxAtSchemas {
		atSchemas.Store(at, c)
	}
	return c.get()
}

func (c *compiled) get() (*jsonschema.Schema, error) {
	c.once.Do(func() { c.schema, c.err = inputschema.Compile([]byte(c.text)) })
	return c.schema, c.err
}

// Problem is one reason an input does not match a tool's schema.
type Problem struct {
	Pointer string `json:"pointer"`
	Message string `json:"message"`
}

// validateInput checks input against the tool's schema. It returns nil when
// the input is valid, or an invalid_input tool error listing every problem
// with the JSON Pointer of the offending value.
func validateInput(tool env.ToolSpec, input []byte) *env.ToolError {
	schema, err := compileSchema(tool.InputSchema)
	if err != nil {
		return env.Errorf("invalid_schema", "tool %s has an input schema that does not compile: %v", tool.Name, err)
	}
	if validInputs.has(schema, input) {
		return nil
	}
	inst, err := decodeInput(input)
	if err != nil {
		inst, err = jsonschema.UnmarshalJSON(bytes.NewReader(input))
	}
	if err != nil {
		return invalidInput(tool.Name, []Problem{{Pointer: "", Message: "input is not JSON: " + err.Error()}})
	}
	err = schema.Validate(inst)
	if err == nil {
		validInputs.add(schema, input)
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return invalidInput(tool.Name, []Problem{{Pointer: "", Message: err.Error()}})
	}
	return invalidInput(tool.Name, problemsOf(ve.BasicOutput()))
}

// problemsOf flattens the basic output into one problem per failing leaf.
func problemsOf(u *jsonschema.OutputUnit) []Problem {
	var out []Problem
	seen := map[Problem]bool{}
	var walk func(u *jsonschema.OutputUnit)
	walk = func(u *jsonschema.OutputUnit) {
		if u.Error != nil && len(u.Errors) == 0 {
			p := Problem{Pointer: u.InstanceLocation, Message: u.Error.String()}
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
		for i := range u.Errors {
			walk(&u.Errors[i])
		}
	}
	walk(u)
	slices.SortStableFunc(out, func(a, b Problem) int {
		return cmp.Or(strings.Compare(a.Pointer, b.Pointer), strings.Compare(a.Message, b.Message))
	})
	return out
}

func invalidInput(tool string, problems []Problem) *env.ToolError {
	msgs := make([]string, len(problems))
	for i, p := range problems {
		where := p.Pointer
		if where == "" {
			where = "(root)"
		}
		msgs[i] = where + ": " + p.Message
	}
	return &env.ToolError{
		Code:    "invalid_input",
		Message: fmt.Sprintf("Invalid arguments for %q: %s.", tool, strings.Join(msgs, "; ")),
		Details: map[string]any{"problems": problems},
	}
}

// validInputs remembers inputs found valid, by schema: a rollout's agent
// sends the same inputs each time it runs (check runs each case twice, and
// the tasks of an environment share many), and validation is a function of
// the schema and the bytes alone. It holds up to maxValidInputs inputs of
// up to maxValidInput bytes each and is emptied when full.
var validInputs = &inputMemo{seen: map[inputKey]struct{}{}}

const (
	maxValidInputs = 4096
	maxValidInput  = 1024
)

type inputKey struct {
	schema *jsonschema.Schema
	input  string
}

type inputMemo struct {
	mu   sync.Mutex
	seen map[inputKey]struct{}
}

func (m *inputMemo) has(schema *jsonschema.Schema, input []byte) bool {
	if len(input) > maxValidInput {
		return false
	}
	m.mu.Lock()
	_, ok := m.seen[inputKey{schema, string(input)}]
	m.mu.Unlock()
	return ok
}

func (m *inputMemo) add(schema *jsonschema.Schema, input []byte) {
	if len(input) > maxValidInput {
		return
	}
	m.mu.Lock()
	if len(m.seen) >= maxValidInputs {
		clear(m.seen)
	}
	m.seen[inputKey{schema, string(input)}] = struct{}{}
	m.mu.Unlock()
}
