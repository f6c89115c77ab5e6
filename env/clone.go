package env

import (
	"encoding"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"sync"
	"unsafe"
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
		deepCopy(out, s)
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

// flat reports whether a value of type t is copied whole by assignment: it
// holds no pointer, slice or map. Strings are flat: they are immutable, so
// a copy may share their bytes.
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

// A deep copy is made in two steps: an assignment of the whole value (one
// typed memory copy, strings and numbers included), then a fix-up that
// walks only the parts that are not flat and replaces, in place, each
// pointer, slice and map by a copy of what it refers to. A slice of structs
// is copied with one reflect.Copy of its backing array before its elements
// are fixed up; no reflect.Value is made per element or per field.

// copier fixes up values of one type, with a fix-up function built on
// first use: the walk over the type is done once, not on every copy.
type copier struct {
	t    reflect.Type
	once sync.Once
	fn   fixFunc // nil when t is flat
}

// fixFunc replaces, in the value of the copier's type at p, every pointer,
// slice and map by a deep copy of what it refers to. The value at p is an
// assignment copy of another value, which it no longer shares anything
// mutable with afterwards.
type fixFunc func(p unsafe.Pointer)

func (c *copier) fix(p unsafe.Pointer) {
	c.once.Do(func() { c.fn = buildFix(c.t) })
	if c.fn != nil {
		c.fn(p)
	}
}

var copiers sync.Map // reflect.Type → *copier

// copierFor returns the copier of t. Building a fix-up asks for the copiers
// of its parts without building them, so a recursive type finds its own.
func copierFor(t reflect.Type) *copier {
	if c, ok := copiers.Load(t); ok {
		return c.(*copier)
	}
	c, _ := copiers.LoadOrStore(t, &copier{t: t})
	return c.(*copier)
}

// deepCopy sets *dst to a deep copy of *src; S is copyable.
func deepCopy[S any](dst, src *S) {
	*dst = *src
	copierFor(reflect.TypeFor[S]()).fix(unsafe.Pointer(dst))
}

// noElements is where an empty slice that is not nil points.
var noElements [0]uint64

// sliceHeader is the memory layout of a slice.
type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}

func buildFix(t reflect.Type) fixFunc {
	if flat(t) {
		return nil
	}
	if sc := scalarOf(t); sc != nil {
		return sc.fix(t.Kind() == reflect.Pointer)
	}
	switch t.Kind() {
	case reflect.Pointer:
		et := t.Elem()
		elem := copierFor(et)
		assign := assigner(et)
		return func(p unsafe.Pointer) {
			old := *(*unsafe.Pointer)(p)
			if old == nil {
				return
			}
			q := reflect.New(et).UnsafePointer()
			assign(q, old)
			elem.fix(q)
			*(*unsafe.Pointer)(p) = q
		}
	case reflect.Slice:
		return sliceFix(t)
	case reflect.Array:
		elem := copierFor(t.Elem())
		size, n := t.Elem().Size(), t.Len()
		return func(p unsafe.Pointer) {
			for i := range n {
				elem.fix(unsafe.Add(p, uintptr(i)*size))
			}
		}
	case reflect.Map:
		if fix := flatMapFix(t); fix != nil {
			return fix
		}
		kt, et := t.Key(), t.Elem()
		elem := copierFor(et)
		fixElems := !flat(et)
		return func(p unsafe.Pointer) {
			m := reflect.NewAt(t, p).Elem()
			if m.IsNil() {
				return
			}
			out := reflect.MakeMapWithSize(t, m.Len())
			k, v := reflect.New(kt).Elem(), reflect.New(et).Elem()
			iter := m.MapRange()
			for iter.Next() {
				k.SetIterKey(iter)
				v.SetIterValue(iter)
				if fixElems {
					elem.fix(v.Addr().UnsafePointer())
				}
				out.SetMapIndex(k, v)
			}
			m.Set(out)
		}
	case reflect.Struct:
		type part struct {
			off  uintptr
			copy *copier
		}
		var parts []part
		for i := range t.NumField() {
			if f := t.Field(i); !flat(f.Type) {
				parts = append(parts, part{off: f.Offset, copy: copierFor(f.Type)})
			}
		}
		return func(p unsafe.Pointer) {
			for _, f := range parts {
				f.copy.fix(unsafe.Add(p, f.off))
			}
		}
	}
	return nil // not reached for a copyable type
}

// flatMapFix returns the fix-up of the common maps of flat values, which
// maps.Clone copies whole, with no reflect call per entry; nil for any
// other map type.
func flatMapFix(t reflect.Type) fixFunc {
	switch t {
	case reflect.TypeFor[map[string]string]():
		return cloneMap[string, string]
	case reflect.TypeFor[map[string]int]():
		return cloneMap[string, int]
	case reflect.TypeFor[map[string]int64]():
		return cloneMap[string, int64]
	case reflect.TypeFor[map[string]float64]():
		return cloneMap[string, float64]
	case reflect.TypeFor[map[string]bool]():
		return cloneMap[string, bool]
	}
	return nil
}

func cloneMap[K comparable, V any](p unsafe.Pointer) {
	if m := (*map[K]V)(p); *m != nil {
		*m = maps.Clone(*m)
	}
}

// assigner returns a function that assigns the value of type t at src to
// the one at dst: a string or a value without pointers directly, anything
// else through reflect, which keeps the garbage collector informed.
func assigner(t reflect.Type) func(dst, src unsafe.Pointer) {
	switch {
	case t.Kind() == reflect.String:
		return func(dst, src unsafe.Pointer) { *(*string)(dst) = *(*string)(src) }
	case !hasPointers(t):
		size := int(t.Size())
		return func(dst, src unsafe.Pointer) {
			copy(unsafe.Slice((*byte)(dst), size), unsafe.Slice((*byte)(src), size))
		}
	}
	return func(dst, src unsafe.Pointer) { reflect.NewAt(t, dst).Elem().Set(reflect.NewAt(t, src).Elem()) }
}

// hasPointers reports whether the memory of a value of type t holds a
// pointer (strings, slices and maps included).
func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface, reflect.String,
		reflect.Chan, reflect.Func, reflect.UnsafePointer:
		return true
	case reflect.Array:
		return t.Len() > 0 && hasPointers(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
	}
	return false
}

// sliceFix copies a slice's backing array with one typed copy, then fixes
// up its elements. For a slice of structs, a field that is a slice of or a
// pointer to a string, boolean or number is copied for every element at
// once, into one new array (a batch); the other fields are fixed up element
// by element.
func sliceFix(t reflect.Type) fixFunc {
	et := t.Elem()
	size := et.Size()
	type part struct {
		off  uintptr
		copy *copier
	}
	var batches []batchFunc
	var each []part
	switch {
	case flat(et):
	case et.Kind() == reflect.Struct:
		for i := range et.NumField() {
			f := et.Field(i)
			if flat(f.Type) {
				continue
			}
			if sc := scalarOf(f.Type); sc != nil {
				batches = append(batches, sc.batch(f.Type.Kind() == reflect.Pointer, f.Offset, size))
				continue
			}
			each = append(each, part{off: f.Offset, copy: copierFor(f.Type)})
		}
	default:
		each = []part{{off: 0, copy: copierFor(et)}}
	}
	return func(p unsafe.Pointer) {
		h := (*sliceHeader)(p)
		if h.data == nil {
			return
		}
		n := h.len
		if n == 0 {
			*h = sliceHeader{data: unsafe.Pointer(&noElements)} // empty, not nil
			return
		}
		// the new slice's header lives on the stack: growing it from nil
		// allocates its backing array and nothing else
		var fresh sliceHeader
		s := reflect.NewAt(t, unsafe.Pointer(&fresh)).Elem()
		s.Grow(n)
		s.SetLen(n)
		reflect.Copy(s, reflect.NewAt(t, p).Elem())
		for _, b := range batches {
			b(fresh.data, n)
		}
		if len(each) > 0 {
			for i := range n {
				e := unsafe.Add(fresh.data, uintptr(i)*size)
				for _, f := range each {
					f.copy.fix(unsafe.Add(e, f.off))
				}
			}
		}
		*h = fresh
	}
}

// batchFunc fixes up one field of each of the n structs of an array that
// starts at base.
type batchFunc func(base unsafe.Pointer, n int)

// scalarCopier copies slices of and pointers to values of one scalar kind
// without reflect.
type scalarCopier interface {
	fix(pointer bool) fixFunc
	batch(pointer bool, off, size uintptr) batchFunc
}

// scalarOf returns the scalarCopier for t when t is a slice of, or a
// pointer to, a string, boolean or number (whatever its type's name: the
// memory layout is the kind's); nil otherwise.
func scalarOf(t reflect.Type) scalarCopier {
	if k := t.Kind(); k != reflect.Slice && k != reflect.Pointer {
		return nil
	}
	switch t.Elem().Kind() {
	case reflect.String:
		return scalar[string]{}
	case reflect.Bool:
		return scalar[bool]{}
	case reflect.Int:
		return scalar[int]{}
	case reflect.Int8:
		return scalar[int8]{}
	case reflect.Int16:
		return scalar[int16]{}
	case reflect.Int32:
		return scalar[int32]{}
	case reflect.Int64:
		return scalar[int64]{}
	case reflect.Uint:
		return scalar[uint]{}
	case reflect.Uint8:
		return scalar[uint8]{}
	case reflect.Uint16:
		return scalar[uint16]{}
	case reflect.Uint32:
		return scalar[uint32]{}
	case reflect.Uint64:
		return scalar[uint64]{}
	case reflect.Float32:
		return scalar[float32]{}
	case reflect.Float64:
		return scalar[float64]{}
	}
	return nil
}

// scalar copies []T and *T.
type scalar[T any] struct{}

func (scalar[T]) fix(pointer bool) fixFunc {
	if pointer {
		return func(p unsafe.Pointer) {
			if old := *(**T)(p); old != nil {
				v := *old
				*(**T)(p) = &v
			}
		}
	}
	return func(p unsafe.Pointer) {
		if old := *(*[]T)(p); old != nil {
			*(*[]T)(p) = append(make([]T, 0, len(old)), old...)
		}
	}
}

// batch copies the pointed-to values, or the slices' elements, of every
// struct into one new array. Each copied slice is capped at its length, so
// an append to it never reaches its neighbour's elements.
func (scalar[T]) batch(pointer bool, off, size uintptr) batchFunc {
	at := func(base unsafe.Pointer, i int) unsafe.Pointer { return unsafe.Add(base, uintptr(i)*size+off) }
	if pointer {
		return func(base unsafe.Pointer, n int) {
			count := 0
			for i := range n {
				if *(**T)(at(base, i)) != nil {
					count++
				}
			}
			if count == 0 {
				return
			}
			buf := make([]T, count)
			j := 0
			for i := range n {
				if pp := (**T)(at(base, i)); *pp != nil {
					buf[j] = **pp
					*pp = &buf[j]
					j++
				}
			}
		}
	}
	return func(base unsafe.Pointer, n int) {
		total := 0
		for i := range n {
			total += len(*(*[]T)(at(base, i)))
		}
		buf := make([]T, total)
		j := 0
		for i := range n {
			if sp := (*[]T)(at(base, i)); *sp != nil {
				l := j + len(*sp)
				copy(buf[j:l], *sp)
				*sp = buf[j:l:l]
				j = l
			}
		}
	}
}
