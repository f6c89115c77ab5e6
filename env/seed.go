package env

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
)

// SeedFile is a JSON file of seed data and the value it decodes into.
type SeedFile struct {
	Name string
	Into any
}

// LoadSeed decodes each file of fsys into its value. Decoding is strict: an
// unknown field or trailing data is an error naming the file, so a typo in
// seed data fails loudly instead of leaving a field empty.
func LoadSeed(fsys fs.FS, files ...SeedFile) error {
	for _, f := range files {
		data, err := fs.ReadFile(fsys, f.Name)
		if err != nil {
			return fmt.Errorf("seed data: %w", err)
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(f.Into); err != nil {
			return fmt.Errorf("seed data %s: %w; fix the file", f.Name, err)
		}
		if dec.More() {
			return fmt.Errorf("seed data %s: more than one JSON value; fix the file", f.Name)
		}
	}
	return nil
}

// maxSeeds bounds the seeds whose JSON an environment keeps: a Seed that
// returns a new value every time costs a marshal per rollout, not memory.
const maxSeeds = 1024

// newState returns a fresh state for one rollout of task and its JSON:
// NewState's, or a copy of Seed's with the seed's JSON made once.
func (e *environment[S]) newState(task Task) (*S, json.RawMessage, error) {
	if e.def.NewState != nil {
		s, err := e.def.NewState(task)
		if err != nil {
			return nil, nil, fmt.Errorf("new state for %s: %w", task.ID, err)
		}
		if s == nil {
			return nil, nil, fmt.Errorf("NewState returned nil for %s", task.ID)
		}
		initial, err := marshalState(s)
		return s, initial, err
	}
	seed, err := e.def.Seed(task)
	if err != nil {
		return nil, nil, fmt.Errorf("seed for %s: %w", task.ID, err)
	}
	if seed == nil {
		return nil, nil, fmt.Errorf("Seed returned nil for %s", task.ID)
	}
	initial, err := e.seedJSON(seed)
	if err != nil {
		return nil, nil, err
	}
	s, err := Clone(seed)
	if err != nil {
		return nil, nil, fmt.Errorf("copy the seed of %s: %w", task.ID, err)
	}
	return s, initial, nil
}

func (e *environment[S]) seedJSON(seed *S) (json.RawMessage, error) {
	e.seedsMu.Lock()
	data, ok := e.seeds[seed]
	e.seedsMu.Unlock()
	if ok {
		return data, nil
	}
	data, err := marshalState(seed)
	if err != nil {
		return nil, err
	}
	e.seedsMu.Lock()
	defer e.seedsMu.Unlock()
	if e.seeds == nil {
		e.seeds = map[*S]json.RawMessage{}
	}
	if len(e.seeds) < maxSeeds {
		e.seeds[seed] = data
	}
	return data, nil
}
