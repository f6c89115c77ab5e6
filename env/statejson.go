package env

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"unsafe"

	"github.com/agent-oracle/oracle/internal/canon"
	"github.com/agent-oracle/oracle/internal/jsontok"
)

// The final state's JSON is made, for a state that began as a copy of a
// seed (Definition.Seed), from the seed's JSON: a top-level field that
// still equals the seed's, and an item of a list that still equals the
// seed's item at its place, are copied from the seed's bytes; only what
// differs is encoded. Equality is decided on the typed values (see
// comparer), against the seed itself, never against memory the rollout's
// tools could reach: a tool that writes where it did not declare is seen
// as surely as by encoding the whole state. The bytes are those
// json.Marshal writes for the whole state, which TestStateJSON and
// FuzzStateJSON check.

// seedLayout is where each top-level field's value lies in a seed's JSON
// and, for a field that is a list, each of its items.
type seedLayout struct {
	data   []byte
	keys   [][]byte   // `"name":` of each field, as the seed's JSON writes it
	values [][2]int   // the byte range of each field's value
	items  [][][2]int // for a list field whose seed is not null, its items' ranges
}

// splicedFields says whether the state type's JSON can be made from a
// seed's: a struct whose fields are copied without JSON and written by
// json.Marshal under their names alone (no omitempty, omitzero or string
// option, which would make a field's presence or form depend on its value).
func splicedFields(t reflect.Type, fields []stateField) bool {
	if t.Kind() != reflect.Struct || len(fields) == 0 || !copyable(t) {
		return false
	}
	for _, f := range fields {
		if f.options != "" {
			return false
		}
	}
	return true
}

// layoutOf indexes seed, the JSON of a seed of the state type with those
// fields, or returns nil when its members are not the fields in order (a
// name json.Marshal writes otherwise, a field it leaves out): the state's
// JSON is then encoded whole.
func layoutOf(seed []byte, seedState unsafe.Pointer, fields []stateField) *seedLayout {
	l := &seedLayout{data: seed, keys: make([][]byte, len(fields)), values: make([][2]int, len(fields)), items: make([][][2]int, len(fields))}
	if len(seed) < 2 || seed[0] != '{' {
		return nil
	}
	i := 1
	for k, f := range fields {
		if k > 0 {
			if i >= len(seed) || seed[i] != ',' {
				return nil
			}
			i++
		}
		keyEnd := jsontok.CompactValueEnd(seed, i)
		var name string
		if keyEnd < 0 || keyEnd >= len(seed) || seed[keyEnd] != ':' || json.Unmarshal(seed[i:keyEnd], &name) != nil || name != f.name {
			return nil
		}
		l.keys[k] = seed[i : keyEnd+1]
		start := keyEnd + 1
		end := jsontok.CompactValueEnd(seed, start)
		if end < 0 {
			return nil
		}
		l.values[k] = [2]int{start, end}
		if f.typ.Kind() == reflect.Slice && seed[start] == '[' {
			items := itemsOf(seed, start, end)
			if items == nil || len(items) != (*sliceHeader)(unsafe.Add(seedState, f.offset)).len {
				return nil
			}
			l.items[k] = items
		}
		i = end
	}
	if i != len(seed)-1 || seed[i] != '}' {
		return nil
	}
	return l
}

// itemsOf returns the byte ranges of the items of the compact array
// data[start:end], or nil when it is not one.
func itemsOf(data []byte, start, end int) [][2]int {
	items := [][2]int{}
	i := start + 1
	for i < end-1 {
		e := jsontok.CompactValueEnd(data, i)
		if e < 0 || e > end-1 {
			return nil
		}
		items = append(items, [2]int{i, e})
		i = e
		if data[i] == ',' {
			i++
		}
	}
	return items
}

// appendStateJSON appends the JSON of the state at p, a copy of the seed
// at q made at Open and written since, as json.Marshal writes it, reusing
// l's bytes for what still equals the seed.
func appendStateJSON(out []byte, p, q unsafe.Pointer, fields []stateField, l *seedLayout) ([]byte, error) {
	w := &stateWriter{buf: bytes.NewBuffer(out)}
	w.buf.WriteByte('{')
	for k, f := range fields {
		if k > 0 {
			w.buf.WriteByte(',')
		}
		w.buf.Write(l.keys[k])
		a, b := unsafe.Add(p, f.offset), unsafe.Add(q, f.offset)
		if f.same.same(a, b) {
			w.buf.Write(l.data[l.values[k][0]:l.values[k][1]])
			continue
		}
		var err error
		if items := l.items[k]; items != nil && (*sliceHeader)(a).data != nil {
			err = w.items(a, b, f.typ.Elem(), items, l.data)
		} else {
			err = w.encode(reflect.NewAt(f.typ, a).Interface())
		}
		if err != nil {
			return nil, err
		}
	}
	w.buf.WriteByte('}')
	return w.buf.Bytes(), nil
}

// stateWriter writes a state's JSON in one buffer, with one encoder for
// what is encoded.
type stateWriter struct {
	buf *bytes.Buffer
	enc *json.Encoder
}

// items writes the JSON of the list at a, item by item: an item that
// equals the seed's list's item at its place is copied from data.
func (w *stateWriter) items(a, b unsafe.Pointer, et reflect.Type, items [][2]int, data []byte) error {
	sa, sb := (*sliceHeader)(a), (*sliceHeader)(b)
	size := et.Size()
	cmp := comparerFor(et)
	w.buf.WriteByte('[')
	for i := range sa.len {
		if i > 0 {
			w.buf.WriteByte(',')
		}
		x := unsafe.Add(sa.data, uintptr(i)*size)
		if i < len(items) && i < sb.len && cmp.same(x, unsafe.Add(sb.data, uintptr(i)*size)) {
			w.buf.Write(data[items[i][0]:items[i][1]])
			continue
		}
		if err := w.encode(reflect.NewAt(et, x).Interface()); err != nil {
			return err
		}
	}
	w.buf.WriteByte(']')
	return nil
}

// encode writes the JSON of v as json.Marshal writes it: without
// encoding/json when canon's typed encoders write its type.
func (w *stateWriter) encode(v any) error {
	if b, ok := canon.AppendMarshal(w.buf.AvailableBuffer(), v); ok {
		w.buf.Write(b)
		return nil
	}
	if w.enc == nil {
		w.enc = json.NewEncoder(w.buf)
	}
	if err := w.enc.Encode(v); err != nil {
		return fmt.Errorf("state does not marshal to JSON: %w", err)
	}
	w.buf.Truncate(w.buf.Len() - 1) // the newline Encode ends with
	return nil
}
