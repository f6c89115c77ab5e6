package env

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"sync"
	"unsafe"

	"github.com/agent-oracle/oracle/internal/safeio"
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
		data, err := safeio.ReadFS(fsys, f.Name)
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

// seedRecord is a seed Seed returned, with its JSON made once and, when
// the state's JSON can be made from it (see stateJSON), its layout.
type seedRecord[S any] struct {
	seed       *S
	json       json.RawMessage
	layoutOnce sync.Once
	layout     *seedLayout
}

// newState returns a fresh state for one rollout of task and its JSON:
// NewState's, or a copy of Seed's with the seed's JSON made once; from is
// the seed it copies when its record is kept, nil otherwise.
func (e *environment[S]) newState(task Task) (s *S, initial json.RawMessage, from *seedRecord[S], err error) {
	if e.def.NewState != nil {
		s, err := e.def.NewState(task)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("new state for %s: %w", task.ID, err)
		}
		if s == nil {
			return nil, nil, nil, fmt.Errorf("NewState returned nil for %s", task.ID)
		}
		initial, err := marshalState(s)
		return s, initial, nil, err
	}
	seed, err := e.def.Seed(task)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("seed for %s: %w", task.ID, err)
	}
	if seed == nil {
		return nil, nil, nil, fmt.Errorf("Seed returned nil for %s", task.ID)
	}
	rec, kept, err := e.seedJSON(seed)
	if err != nil {
		return nil, nil, nil, err
	}
	if s, err = Clone(seed); err != nil {
		return nil, nil, nil, fmt.Errorf("copy the seed of %s: %w", task.ID, err)
	}
	if !kept {
		return s, rec.json, nil, nil
	}
	return s, rec.json, rec, nil
}

// seedJSON returns the record of seed, and whether it is kept.
func (e *environment[S]) seedJSON(seed *S) (*seedRecord[S], bool, error) {
	e.seedsMu.Lock()
	rec, ok := e.seeds[seed]
	e.seedsMu.Unlock()
	if ok {
		return rec, true, nil
	}
	data, err := marshalState(seed)
	if err != nil {
		return nil, false, err
	}
	rec = &seedRecord[S]{seed: seed, json: data}
	e.seedsMu.Lock()
	defer e.seedsMu.Unlock()
	if e.seeds == nil {
		e.seeds = map[*S]*seedRecord[S]{}
	}
	if len(e.seeds) >= maxSeeds {
		return rec, false, nil
	}
	if kept, ok := e.seeds[seed]; ok {
		return kept, true, nil
	}
	e.seeds[seed] = rec
	return rec, true, nil
}

// layoutIn returns the layout of the seed's JSON for e's state type, or nil
// when the state's JSON cannot be made from it.
func (r *seedRecord[S]) layoutIn(e *environment[S]) *seedLayout {
	r.layoutOnce.Do(func() {
		if e.spliced {
			r.layout = layoutOf(r.json, unsafe.Pointer(r.seed), e.fields)
		}
	})
	return r.layout
}
