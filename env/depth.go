package env

import (
	"reflect"

	"github.com/agent-oracle/oracle/internal/safeio"
)

// depthBound returns the deepest nesting of arrays and objects the JSON of
// a value of the copyable type t can have, and false when the type does
// not bound it (a recursive type). The runner refuses a final state nested
// deeper than safeio.MaxDepth; a state whose type bounds its depth below
// that need not have its JSON scanned for it.
func depthBound(t reflect.Type) (int, bool) {
	return typeDepth(t, map[reflect.Type]bool{})
}

func typeDepth(t reflect.Type, open map[reflect.Type]bool) (int, bool) {
	if open[t] {
		return 0, false // a type that holds itself: no bound
	}
	open[t] = true
	defer delete(open, t)
	switch t.Kind() {
	case reflect.Pointer:
		return typeDepth(t.Elem(), open)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return 0, true // base64 in a string
		}
		d, ok := typeDepth(t.Elem(), open)
		return d + 1, ok
	case reflect.Array, reflect.Map:
		d, ok := typeDepth(t.Elem(), open)
		return d + 1, ok
	case reflect.Struct:
		most := 0
		for i := range t.NumField() {
			d, ok := typeDepth(t.Field(i).Type, open)
			if !ok {
				return 0, false
			}
			most = max(most, d)
		}
		return most + 1, true
	case reflect.Interface:
		return 0, false
	}
	return 0, true
}

// shallowState reports whether the JSON of every state of e is nested at
// most safeio.MaxDepth deep, by its type.
func shallowState(t reflect.Type) bool {
	if !copyable(t) {
		return false
	}
	d, ok := depthBound(t)
	return ok && d <= safeio.MaxDepth
}
