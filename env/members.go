package env

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/agent-oracle/oracle/internal/jsontok"
)

// A tool may declare that it writes one member of a collection: Writes
// "opportunities[opportunityId]" says that Run changes, of the field
// opportunities (a list of structs with a string "id"), only the member
// whose id is the input's opportunityId, and may append members; it leaves
// the others where and as they are. A call then costs what that member
// holds rather than the collection: once the list is the state's own (the
// first write of a rollout copies it, as the initial state the verifier
// receives shares it until then; see owned), the world keeps a shallow copy
// of the member and gives the tool fresh copies of what the member refers
// to, and a failed call puts the member and the list's length back. A list
// in which two members have that id, or an input that does not name one
// for sure (no such string property, or one whose name differs only in
// case, which encoding/json would match), is copied whole, as a field
// named alone is.

// memberWrite is a declared write of one member of a field.
type memberWrite struct {
	field  int    // the field's position in the environment's fields
	key    string // the input's property whose value is the member's id
	elem   reflect.Type
	size   uintptr
	idAt   uintptr // the offset of the member's id in it
	copy   *copier // the member's
	assign func(dst, src unsafe.Pointer)
}

// at is the address of member i of the list h.
func (m *memberWrite) at(h *sliceHeader, i int) unsafe.Pointer {
	return unsafe.Add(h.data, uintptr(i)*m.size)
}

// id is the id of the member at p.
func (m *memberWrite) id(p unsafe.Pointer) string { return *(*string)(unsafe.Add(p, m.idAt)) }

// parseWrite splits a Writes entry into its field name and, for a member
// write, the input's property that names the member.
func parseWrite(entry string) (field, key string, member bool) {
	name, rest, ok := strings.Cut(entry, "[")
	if !ok {
		return entry, "", false
	}
	key, ok = strings.CutSuffix(rest, "]")
	if !ok || key == "" || strings.ContainsAny(key, "[]") {
		return entry, "", false
	}
	return name, key, true
}

// newMemberWrite checks that f is a list of structs with a string id and
// returns the write of the member key names.
func newMemberWrite(tool string, at int, f stateField, key string) (memberWrite, error) {
	if f.typ.Kind() != reflect.Slice || f.typ.Elem().Kind() != reflect.Struct {
		return memberWrite{}, fmt.Errorf("tool %s: Writes names %s[%s], but %s is not a list of objects; name the field alone", tool, f.name, key, f.name)
	}
	et := f.typ.Elem()
	for i := range et.NumField() {
		sf := et.Field(i)
		if name, _, ok := jsonName(sf); ok && name == "id" && sf.Type.Kind() == reflect.String {
			return memberWrite{field: at, key: key, elem: et, size: et.Size(), idAt: sf.Offset,
				copy: copierFor(et), assign: assigner(et)}, nil
		}
	}
	return memberWrite{}, fmt.Errorf("tool %s: Writes names %s[%s], but the members of %s have no string field \"id\"; name the field alone", tool, f.name, key, f.name)
}

// savedMember is a member a call may change, as it was before the call.
type savedMember struct {
	m     *memberWrite
	index int
	saved unsafe.Pointer // a shallow copy of the member
}

// owned reports whether the list of field i is the state's own: no other
// value (the verifier's initial state) refers to it.
func (w *world[S]) owned(i int) bool { return i < 128 && w.own[i/64]&(1<<(i%64)) != 0 }

func (w *world[S]) setOwned(i int) {
	if i < 128 {
		w.own[i/64] |= 1 << (i % 64)
	}
}

func (w *world[S]) ownAll() {
	for i := range w.env.fields {
		w.setOwned(i)
	}
}

// list is the header of the list of field i of the state s.
func (w *world[S]) list(s *S, i int) *sliceHeader {
	return (*sliceHeader)(unsafe.Add(unsafe.Pointer(s), w.env.fields[i].offset))
}

// detachMember prepares the state for a call that writes one member of a
// list: the member's shallow copy goes to snap and the member gets fresh
// copies of what it refers to; a list the state does not own yet, or one
// where the member cannot be told, is copied whole.
func (w *world[S]) detachMember(m *memberWrite, input json.RawMessage, snap *snapshot[S]) {
	h := w.list(w.state, m.field)
	whole := func() {
		w.env.fields[m.field].copy.fix(unsafe.Pointer(h))
		w.setOwned(m.field)
	}
	if !w.owned(m.field) {
		whole()
		return
	}
	id, ok := inputString(input, m.key)
	if !ok {
		whole()
		return
	}
	at := -1
	for i := range h.len {
		if m.id(m.at(h, i)) == id {
			if at >= 0 {
				whole() // two members with that id
				return
			}
			at = i
		}
	}
	if at < 0 {
		return // no such member: the tool may append, and the list's length is put back
	}
	member := m.at(h, at)
	saved := reflect.New(m.elem).UnsafePointer()
	m.assign(saved, member)
	m.copy.fix(member)
	snap.members = append(snap.members, savedMember{m: m, index: at, saved: saved})
}

// putMembersBack puts the saved members back into the lists of the state,
// whose headers are those from before the call.
func (w *world[S]) putMembersBack(snap snapshot[S]) {
	for k := len(snap.members) - 1; k >= 0; k-- {
		sm := snap.members[k]
		h := w.list(w.state, sm.m.field)
		sm.m.assign(sm.m.at(h, sm.index), sm.saved)
	}
}

// withMembersBefore returns a shallow copy of the state from before the
// call (snap.typed) whose lists of saved members are new lists holding the
// members as they were: a stuck tool may still be writing the member in
// the list it holds. The other members are read where they are, as the
// tool does not write them.
func (w *world[S]) withMembersBefore(snap snapshot[S]) *S {
	out := new(S)
	*out = *snap.typed
	for _, sm := range snap.members {
		h := w.list(out, sm.m.field)
		t := w.env.fields[sm.m.field].typ
		old := reflect.NewAt(t, unsafe.Pointer(h)).Elem()
		fresh := reflect.MakeSlice(t, h.len, h.len)
		for i := range h.len {
			if i == sm.index {
				sm.m.assign(fresh.Index(i).Addr().UnsafePointer(), sm.saved)
				continue
			}
			fresh.Index(i).Set(old.Index(i))
		}
		old.Set(fresh)
	}
	return out
}

// memberGuard is, for the checked mode, the JSON of each member of a list
// a call must not change (nil for those whose id is the one it names).
type memberGuard struct {
	m      *memberWrite
	before [][]byte
}

// guardMembers takes the JSON of the members the declared member writes
// must leave as they are.
func (w *world[S]) guardMembers(tool *boundTool[S], input json.RawMessage) ([]memberGuard, error) {
	var out []memberGuard
	for i := range tool.members {
		m := &tool.members[i]
		id, named := inputString(input, m.key)
		h := w.list(w.state, m.field)
		g := memberGuard{m: m, before: make([][]byte, h.len)}
		for j := range h.len {
			member := m.at(h, j)
			if named && m.id(member) == id {
				continue
			}
			data, err := json.Marshal(reflect.NewAt(m.elem, member).Interface())
			if err != nil {
				return nil, err
			}
			g.before[j] = data
		}
		out = append(out, g)
	}
	return out, nil
}

// checkMembers fails a call that removed a member of a list it declares a
// member write of, or changed another member than the one it names.
func (w *world[S]) checkMembers(tool string, guards []memberGuard) error {
	for _, g := range guards {
		name := w.env.fields[g.m.field].name
		h := w.list(w.state, g.m.field)
		if h.len < len(g.before) {
			return Errorf("writes_violated", "tool %s removed members of %q, whose Writes %s[%s] lets it change one member and append; name %q alone in Writes", tool, name, name, g.m.key, name)
		}
		for j, before := range g.before {
			if before == nil {
				continue
			}
			after, err := json.Marshal(reflect.NewAt(g.m.elem, g.m.at(h, j)).Interface())
			if err != nil {
				return fmt.Errorf("state after tool %s: %w", tool, err)
			}
			if !bytes.Equal(before, after) {
				return Errorf("writes_violated", "tool %s changed member %d of %q, not the member its Writes %s[%s] names (the one whose id is its input's %s); name %q alone in Writes", tool, j, name, name, g.m.key, g.m.key, name)
			}
		}
	}
	return nil
}

// inputString is the string value of the input object's property key; not
// ok when there is none, or when another property's name differs from key
// only in case (encoding/json may decode either into the tool's input).
func inputString(input json.RawMessage, key string) (string, bool) {
	if value, ok, sure := compactInputString(input, key); sure {
		return value, ok
	}
	return decodedInputString(input, key)
}

// compactInputString is inputString for compact JSON without escapes in
// the keys and the value, as the runner passes inputs, read in place; not
// sure for anything else.
func compactInputString(input []byte, key string) (value string, ok, sure bool) {
	if len(input) < 2 || input[0] != '{' {
		return "", false, false
	}
	i := 1
	if input[i] == '}' {
		return "", false, i+1 == len(input)
	}
	for {
		if i >= len(input) || input[i] != '"' {
			return "", false, false
		}
		e := jsontok.CompactValueEnd(input, i)
		if e < 0 || e >= len(input) || input[e] != ':' {
			return "", false, false
		}
		k := input[i+1 : e-1]
		if bytes.IndexByte(k, '\\') >= 0 {
			return "", false, false
		}
		vs := e + 1
		ve := jsontok.CompactValueEnd(input, vs)
		if ve < 0 || ve >= len(input) {
			return "", false, false
		}
		switch {
		case string(k) == key:
			// of repeated keys the last wins, as encoding/json decides
			// (null reads as "", as encoding/json reads it into a string)
			v := input[vs:ve]
			switch {
			case v[0] == ' ' || v[0] == '\t' || v[0] == '\n' || v[0] == '\r':
				return "", false, false
			case string(v) == "null":
				value, ok = "", true
			case v[0] == '"':
				if bytes.IndexByte(v, '\\') >= 0 || !utf8.Valid(v) {
					return "", false, false
				}
				value, ok = string(v[1:len(v)-1]), true
			default:
				value, ok = "", false
			}
		case strings.EqualFold(string(k), key):
			return "", false, true
		}
		switch input[ve] {
		case ',':
			i = ve + 1
		case '}':
			return value, ok, ve+1 == len(input)
		default:
			return "", false, false
		}
	}
}

// decodedInputString is inputString for any JSON, with encoding/json.
func decodedInputString(input json.RawMessage, key string) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(input))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", false
	}
	found, value := false, ""
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return "", false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return "", false
		}
		name, _ := t.(string)
		switch {
		case name == key:
			// of repeated keys the last wins, as encoding/json decides
			var s string
			found = json.Unmarshal(v, &s) == nil
			value = s
		case strings.EqualFold(name, key):
			return "", false
		}
	}
	return value, found
}
