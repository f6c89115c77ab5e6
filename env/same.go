package env

import (
	"bytes"
	"reflect"
	"sync"
	"unsafe"
)

// A comparer tells whether two values of one copyable type have the same
// JSON, without making it: the state's JSON reuses the seed's bytes for
// what still equals the seed (see stateJSON). It may answer false for
// values whose JSON is the same (two maps, two equal strings in different
// memory), never true for values whose JSON differs: memory equal byte for
// byte encodes the same, strings are immutable, and pointers, slices and
// maps are followed, not compared by address.
type comparer struct {
	t    reflect.Type
	once sync.Once
	fn   func(p, q unsafe.Pointer) bool
}

var comparers sync.Map // reflect.Type → *comparer

// comparerFor returns the comparer of t; like copierFor, building one asks
// for the comparers of its parts without building them.
func comparerFor(t reflect.Type) *comparer {
	if c, ok := comparers.Load(t); ok {
		return c.(*comparer)
	}
	c, _ := comparers.LoadOrStore(t, &comparer{t: t})
	return c.(*comparer)
}

// same reports whether the values at p and q have the same JSON.
func (c *comparer) same(p, q unsafe.Pointer) bool {
	c.once.Do(func() { c.fn = buildSame(c.t) })
	return c.fn(p, q)
}

// memEqual reports whether the n bytes at p and q are equal.
func memEqual(p, q unsafe.Pointer, n uintptr) bool {
	return n == 0 || bytes.Equal(unsafe.Slice((*byte)(p), n), unsafe.Slice((*byte)(q), n))
}

func buildSame(t reflect.Type) func(p, q unsafe.Pointer) bool {
	if flat(t) {
		size := t.Size()
		return func(p, q unsafe.Pointer) bool { return memEqual(p, q, size) }
	}
	switch t.Kind() {
	case reflect.Pointer:
		elem := comparerFor(t.Elem())
		return func(p, q unsafe.Pointer) bool {
			a, b := *(*unsafe.Pointer)(p), *(*unsafe.Pointer)(q)
			if a == nil || b == nil {
				return a == b
			}
			return elem.same(a, b)
		}
	case reflect.Slice:
		et := t.Elem()
		size := et.Size()
		flatElems := flat(et)
		elem := comparerFor(et)
		return func(p, q unsafe.Pointer) bool {
			a, b := (*sliceHeader)(p), (*sliceHeader)(q)
			if (a.data == nil) != (b.data == nil) || a.len != b.len {
				return false // null against [], or another length
			}
			if flatElems {
				return memEqual(a.data, b.data, size*uintptr(a.len))
			}
			for i := range uintptr(a.len) {
				if !elem.same(unsafe.Add(a.data, i*size), unsafe.Add(b.data, i*size)) {
					return false
				}
			}
			return true
		}
	case reflect.Array:
		size, n := t.Elem().Size(), uintptr(t.Len())
		elem := comparerFor(t.Elem())
		return func(p, q unsafe.Pointer) bool {
			for i := range n {
				if !elem.same(unsafe.Add(p, i*size), unsafe.Add(q, i*size)) {
					return false
				}
			}
			return true
		}
	case reflect.Struct:
		// runs of flat fields are compared as one span of memory (the
		// padding between them, copied with them, included)
		type part struct {
			off, size uintptr
			cmp       *comparer // nil: compared as memory
		}
		var parts []part
		for i := range t.NumField() {
			f := t.Field(i)
			if !flat(f.Type) {
				parts = append(parts, part{off: f.Offset, cmp: comparerFor(f.Type)})
				continue
			}
			end := f.Offset + f.Type.Size()
			if n := len(parts); n > 0 && parts[n-1].cmp == nil {
				parts[n-1].size = end - parts[n-1].off
			} else {
				parts = append(parts, part{off: f.Offset, size: end - f.Offset})
			}
		}
		return func(p, q unsafe.Pointer) bool {
			for _, f := range parts {
				a, b := unsafe.Add(p, f.off), unsafe.Add(q, f.off)
				if f.cmp == nil && !memEqual(a, b, f.size) || f.cmp != nil && !f.cmp.same(a, b) {
					return false
				}
			}
			return true
		}
	}
	// maps (their order is the encoder's) and anything else: not told
	return func(p, q unsafe.Pointer) bool { return false }
}
