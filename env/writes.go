package env

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"unsafe"
)

// A write tool's rollback costs what it may touch. Before a call of a tool
// that is not ReadOnly, the world keeps a shallow copy of the state (the
// top-level struct: its flat fields and the references to everything
// else) and gives the tool fresh deep copies of the fields it declares in
// Writes, or of the whole state when it declares nothing. The tool changes
// those copies; the originals stay as they were, so a failed call is undone
// by putting the shallow copy back, and the initial state the verifier
// receives can share every field no tool wrote. A tool that declares it
// writes one member of a list copies that member only (members.go).

// stateField is a top-level field of a struct state.
type stateField struct {
	name    string // its JSON name
	options string // its JSON tag's options ("omitempty", …)
	index   int
	offset  uintptr
	typ     reflect.Type
	copy    *copier
	same    *comparer
}

// stateFields returns the fields of a struct state type by JSON name, in
// declaration order, or nil when t is not a struct. Fields JSON leaves out
// (json:"-", unexported) are not listed.
func stateFields(t reflect.Type) []stateField {
	if t.Kind() != reflect.Struct {
		return nil
	}
	var out []stateField
	for i := range t.NumField() {
		f := t.Field(i)
		name, options, ok := jsonName(f)
		if !ok {
			continue
		}
		out = append(out, stateField{name: name, options: options, index: i, offset: f.Offset, typ: f.Type,
			copy: copierFor(f.Type), same: comparerFor(f.Type)})
	}
	return out
}

// declaredWrites resolves a tool's Writes to positions in fields: all of
// them (nil when the tool declared nothing: it may write anywhere), those
// it writes whole, and its member writes (see members.go).
func declaredWrites(t reflect.Type, fields []stateField, tool string, readOnly bool, writes []string) (declared, whole []int, members []memberWrite, err error) {
	if len(writes) == 0 {
		return nil, nil, nil, nil
	}
	if readOnly {
		return nil, nil, nil, fmt.Errorf("tool %s declares both ReadOnly and Writes; a tool that writes is not read-only", tool)
	}
	if t.Kind() != reflect.Struct {
		return nil, nil, nil, fmt.Errorf("tool %s declares Writes, which name fields of the state, but the state type %s is not a struct; remove Writes", tool, t)
	}
	declared, whole = make([]int, 0, len(writes)), make([]int, 0, len(writes))
	for _, entry := range writes {
		name, key, member := parseWrite(entry)
		at := -1
		for i, f := range fields {
			if f.name == name {
				at = i
			}
		}
		if at < 0 {
			names := make([]string, len(fields))
			for i, f := range fields {
				names[i] = f.name
			}
			return nil, nil, nil, fmt.Errorf("tool %s: Writes names %q, which is not a field of the state; its fields (by JSON name): %s", tool, name, strings.Join(names, ", "))
		}
		declared = append(declared, at)
		if !member {
			whole = append(whole, at)
			continue
		}
		m, err := newMemberWrite(tool, at, fields[at], key)
		if err != nil {
			return nil, nil, nil, err
		}
		members = append(members, m)
	}
	for _, m := range members {
		if declares(whole, m.field) {
			return nil, nil, nil, fmt.Errorf("tool %s: Writes names %s both alone and with a member; keep one", tool, fields[m.field].name)
		}
	}
	return declared, whole, members, nil
}

// detach gives the state fresh deep copies of the fields at those
// positions (of every field when writes is nil); the values they replace
// are left untouched for whoever still holds them.
func (w *world[S]) detach(writes []int) {
	p := unsafe.Pointer(w.state)
	if writes == nil {
		w.env.copy.fix(p)
		w.ownAll()
		return
	}
	for _, i := range writes {
		f := w.env.fields[i]
		f.copy.fix(unsafe.Add(p, f.offset))
		w.setOwned(i)
	}
}

// guardedFields is the JSON of each field of the state a call must not
// change (nil at the positions it may), for the checked mode.
func (w *world[S]) guardedFields(writes []int) ([][]byte, error) {
	v := reflect.ValueOf(w.state).Elem()
	out := make([][]byte, len(w.env.fields))
	for i, f := range w.env.fields {
		if declares(writes, i) {
			continue
		}
		data, err := json.Marshal(v.Field(f.index).Interface())
		if err != nil {
			return nil, err
		}
		out[i] = data
	}
	return out, nil
}

func declares(writes []int, i int) bool {
	for _, j := range writes {
		if j == i {
			return true
		}
	}
	return false
}

// checkWrites fails a tool that changed a field its Writes does not
// declare.
func (w *world[S]) checkWrites(name string, before [][]byte) error {
	after, err := w.guardedFields(w.env.tools[name].writes)
	if err != nil {
		return fmt.Errorf("state after tool %s: %w", name, err)
	}
	for i := range before {
		if before[i] != nil && string(before[i]) != string(after[i]) {
			return Errorf("writes_violated", "tool %s changed %q, which its Writes does not declare; add %q to the tool's Writes", name, w.env.fields[i].name, w.env.fields[i].name)
		}
	}
	return nil
}
