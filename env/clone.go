package env

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"
)

// Clone returns a deep copy of *s that equals what a JSON round trip of *s
// would give (strings keep their bytes, even invalid UTF-8). When S is made only of exported fields without json:"-", of
// booleans, numbers, strings, pointers, slices, arrays, maps and structs,
// and has no custom JSON or text marshalling, the copy is made field by
// field (no JSON); otherwise it is a JSON round trip. Environments use it to
// parse their seed data once and hand each rollout its own copy.
func Clone[S any](s *S) (*S, error) {
	if s == nil {
		return nil, fmt.Errorf("clone: nil state")
	}
	if copyable(reflect.TypeFor[S]()) {
		out := new(S)
		deepCopy(reflect.ValueOf(out).Elem(), reflect.ValueOf(s).Elem())
		return out, nil
	}
	data, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("clone: %w", err)
	}
	out := new(S)
	if err := json.Unmarshal(data, out); err != nil {
		return nil, fmt.Errorf("clone: %w", err)
	}
	return out, nil
}

var copyableTypes sync.Map // reflect.Type → bool

// copyable reports whether deepCopy gives what a JSON round trip gives for
// values of type t.
func copyable(t reflect.Type) bool {
	if ok, found := copyableTypes.Load(t); found {
		return ok.(bool)
	}
	ok := checkCopyable(t, map[reflect.Type]bool{})
	copyableTypes.Store(t, ok)
	return ok
}

var (
	jsonMarshaler   = reflect.TypeFor[json.Marshaler]()
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textMarshaler   = reflect.TypeFor[encoding.TextMarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

func checkCopyable(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return true // a recursive type: its other fields decide
	}
	seen[t] = true
	for _, m := range []reflect.Type{jsonMarshaler, jsonUnmarshaler, textMarshaler, textUnmarshaler} {
		if t.Implements(m) || reflect.PointerTo(t).Implements(m) {
			return false
		}
	}
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64, reflect.String:
		return true
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return checkCopyable(t.Elem(), seen)
	case reflect.Map:
		switch t.Key().Kind() {
		case reflect.String, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		default:
			return false
		}
		return checkCopyable(t.Key(), seen) && checkCopyable(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() || f.Anonymous || f.Tag.Get("json") == "-" {
				return false
			}
			if !checkCopyable(f.Type, seen) {
				return false
			}
		}
		return true
	}
	return false // interfaces, channels, functions, complex numbers
}

// flat reports whether a value of type t can be copied by assignment: it
// holds no pointer, slice or map.
func flat(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
		return false
	case reflect.Array:
		return flat(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if !flat(t.Field(i).Type) {
				return false
			}
		}
	}
	return true
}

// copier copies values of one type, with a copy function built on first
// use: the walk over the type is done once, not on every copy.
type copier struct {
	t    reflect.Type
	once sync.Once
	fn   copyFunc
}

// copyFunc copies src into dst, a settable zero value of the same type.
type copyFunc func(dst, src reflect.Value)

func (c *copier) copy(dst, src reflect.Value) {
	c.once.Do(func() { c.fn = buildCopier(c.t) })
	c.fn(dst, src)
}

var copiers sync.Map // reflect.Type → *copier

// deepCopy copies src into dst, a settable zero value of the same copyable
// type.
func deepCopy(dst, src reflect.Value) { copierFor(src.Type()).copy(dst, src) }

// copierFor returns the copier of t. Building a copier asks for the
// copiers of its parts without building them, so a recursive type finds
// its own.
func copierFor(t reflect.Type) *copier {
	if c, ok := copiers.Load(t); ok {
		return c.(*copier)
	}
	c, _ := copiers.LoadOrStore(t, &copier{t: t})
	return c.(*copier)
}

func buildCopier(t reflect.Type) copyFunc {
	if flat(t) {
		return func(dst, src reflect.Value) { dst.Set(src) }
	}
	switch t.Kind() {
	case reflect.Pointer:
		elem := copierFor(t.Elem())
		return func(dst, src reflect.Value) {
			if src.IsNil() {
				return
			}
			p := reflect.New(t.Elem())
			elem.copy(p.Elem(), src.Elem())
			dst.Set(p)
		}
	case reflect.Slice:
		if flat(t.Elem()) {
			return func(dst, src reflect.Value) {
				if src.IsNil() {
					return
				}
				s := reflect.MakeSlice(t, src.Len(), src.Len())
				reflect.Copy(s, src)
				dst.Set(s)
			}
		}
		elem := copierFor(t.Elem())
		return func(dst, src reflect.Value) {
			if src.IsNil() {
				return
			}
			n := src.Len()
			s := reflect.MakeSlice(t, n, n)
			for i := range n {
				elem.copy(s.Index(i), src.Index(i))
			}
			dst.Set(s)
		}
	case reflect.Array:
		elem := copierFor(t.Elem())
		return func(dst, src reflect.Value) {
			for i := range src.Len() {
				elem.copy(dst.Index(i), src.Index(i))
			}
		}
	case reflect.Map:
		flatElem := flat(t.Elem())
		elem := copierFor(t.Elem())
		return func(dst, src reflect.Value) {
			if src.IsNil() {
				return
			}
			m := reflect.MakeMapWithSize(t, src.Len())
			iter := src.MapRange()
			for iter.Next() {
				if flatElem {
					m.SetMapIndex(iter.Key(), iter.Value())
					continue
				}
				v := reflect.New(t.Elem()).Elem()
				elem.copy(v, iter.Value())
				m.SetMapIndex(iter.Key(), v)
			}
			dst.Set(m)
		}
	case reflect.Struct:
		type part struct {
			i    int
			flat bool
			copy *copier
		}
		parts := make([]part, t.NumField())
		for i := range parts {
			ft := t.Field(i).Type
			parts[i] = part{i: i, flat: flat(ft), copy: copierFor(ft)}
		}
		return func(dst, src reflect.Value) {
			dst.Set(src) // the flat fields at once
			for _, p := range parts {
				if !p.flat {
					f := dst.Field(p.i)
					f.SetZero()
					p.copy.copy(f, src.Field(p.i))
				}
			}
		}
	}
	return func(dst, src reflect.Value) { dst.Set(src) }
}
