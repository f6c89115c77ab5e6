package canon

import (
	"testing"

	"github.com/agent-oracle/oracle/internal/safeio"
)

// nestedSlices is n arrays, one in the other, around 1.
func nestedSlices(n int) any {
	var v any = 1
	for range n {
		v = []any{v}
	}
	return v
}

// nestedMaps is n objects, one in the other, around "x".
func nestedMaps(n int) any {
	var v any = "x"
	for range n {
		v = map[string]any{"a": v}
	}
	return v
}

type link struct {
	Next *link `json:"next,omitempty"`
}

// nestedStructs is n objects of one type, one in the other.
func nestedStructs(n int) any {
	var v *link
	for range n {
		v = &link{Next: v}
	}
	return v
}

// Values nested as deep as an artifact may be (safeio.MaxDepth) are
// written by canon's own encoders, and deeper ones are left to
// encoding/json: either way the bytes are encoding/json's.
func TestDepthOfTheEncoders(t *testing.T) {
	for _, tt := range []struct {
		name   string
		make   func(int) any
		simple bool // appendSimple writes it
	}{{"arrays", nestedSlices, false}, {"maps", nestedMaps, true}, {"structs", nestedStructs, false}} {
		for _, n := range []int{safeio.MaxDepth - 1, safeio.MaxDepth, safeio.MaxDepth + 1, 2 * safeio.MaxDepth} {
			v := tt.make(n)
			within := n <= safeio.MaxDepth
			if _, typed := appendTyped(nil, v); typed != within {
				t.Errorf("%s nested %d: written by the typed encoder %v, want %v", tt.name, n, typed, within)
			}
			if _, simple := appendSimple(nil, v); simple != (within && tt.simple) {
				t.Errorf("%s nested %d: written by appendSimple %v, want %v", tt.name, n, simple, within && tt.simple)
			}
			want, werr := compactReference(v)
			got, err := Compact(v)
			if werr != nil || err != nil || string(got) != string(want) {
				t.Errorf("%s nested %d: Compact %.40q, %v; encoding/json %.40q, %v", tt.name, n, got, err, want, werr)
			}
		}
	}
}
