package statediff

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/agent-oracle/oracle/internal/canon"
	"github.com/google/go-cmp/cmp"
)

// FuzzCompute checks the state diff on random pairs of states: it gives
// the same bytes as the decoding reference, the diff is empty only when the
// states are equal, and every path it names really differs between them.
// Each pair is also tried as an edit: a against a with b spliced into it,
// so that the two sides share most of their bytes, as the states before
// and after a rollout do.
func FuzzCompute(f *testing.F) {
	seeds := [][2]string{
		{`{}`, `{}`},
		{`{"a":1}`, `{"a":2}`},
		{`{"c":[{"id":"x","v":1}]}`, `{"c":[{"id":"x","v":{"w":[1,2]}}]}`},
		{`{"c":{"k":{"a":[1,{"b":null}]}}}`, `{"c":{"k":{"a":[1,{"b":false}]},"j":1}}`},
		{`{"c":[{"id":"x"},{"id":"x"}]}`, `{"c":[{"id":"x"}]}`},
		{`{"a~/b":{"x/y":{"~":1}}}`, `{"a~/b":{"x/y":{"~":2}}}`},
		{`{"n":1.0}`, `{"n":1}`},
		{`{"s":"\u00e9"}`, `{"s":"é"}`},
		{`{"c":[{"id":"a","v":1},{"id":"b","v":2},{"id":"c","v":3}],"n":1}`, `,{"id":"b2","v":2}`},
		{`{"c":[{"id":"a","v":1},{"id":"b","v":2},{"id":"c","v":3}],"n":1}`, `{"id":"a","v":1},`},
		{`{"c":[{"id":"c","v":3},{"id":"b","v":2},{"id":"a","v":1}],"o":{"k":[1]}}`, `"id":"z",`},
		{`{"c":[{"id":"a","v":"x\u2028y"},{"id":"b","v":"\ud800"}],"s":"\"\ufffd"}`, `1`},
		{`{"c":{"k":{"z":1,"b":2,"a":{"y":1,"x":2}}}}`, `{"c":{"k":{"z":9,"b":2,"a":{"y":3,"x":4}}}}`},
		{`{"c":{"k":{"a":1,"b":2,"a":3}}}`, `{"c":{"k":{"a":9,"b":2,"a":3}}}`},
		{`{"c":{"k":{"a":1,"b":2,"a":3}}}`, `{"c":{"k":{"a":1,"b":2,"a":4}}}`},
	}
	for _, s := range seeds {
		f.Add([]byte(s[0]), []byte(s[1]))
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		checkCompute(t, a, b)
		k := len(a) / 2
		if len(b) > 0 {
			k = int(b[0]) * len(a) / 256
		}
		inserted := slices.Concat(a[:k], b, a[k:])
		checkCompute(t, a, inserted)
		checkCompute(t, inserted, a)
		replaced := slices.Concat(a[:k], b, a[min(len(a), k+len(b)):])
		checkCompute(t, a, replaced)
	})
}

func checkCompute(t *testing.T, a, b []byte) {
	d, err := Compute(a, b)
	va, errA := canon.Decode(a)
	vb, errB := canon.Decode(b)
	_, objA := va.(map[string]any)
	_, objB := vb.(map[string]any)
	if errA != nil || errB != nil || !objA || !objB {
		if err == nil {
			t.Fatalf("Compute accepted input that is not two JSON objects: %q %q", a, b)
		}
		return
	}
	if err != nil {
		t.Fatalf("Compute(%q, %q): %v", a, b, err)
	}
	got, err := d.Marshal()
	if err != nil {
		t.Fatalf("Marshal: %v", err)
	}
	if viaCanon, _ := canon.Marshal(d); !bytes.Equal(got, viaCanon) {
		t.Fatalf("Marshal differs from canon.Marshal:\n%s", cmp.Diff(string(viaCanon), string(got)))
	}
	ref, err := reference(a, b)
	if err != nil {
		t.Fatalf("reference(%q, %q): %v", a, b, err)
	}
	want, err := ref.Marshal()
	if err != nil {
		t.Fatalf("Marshal the reference: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("Compute(%q, %q) differs from the reference:\n%s", a, b, cmp.Diff(string(want), string(got)))
	}
	if d.Empty() != equal(va, vb) {
		t.Fatalf("Empty() = %v for %q and %q", d.Empty(), a, b)
	}
	ma, mb := va.(map[string]any), vb.(map[string]any)
	for _, s := range d.Scalars {
		x, okx := ma[s.Field]
		y, oky := mb[s.Field]
		if okx == oky && equal(x, y) {
			t.Fatalf("scalar %s reported but equal", s.Field)
		}
	}
	for name, c := range d.Collections {
		for _, ch := range c.Changed {
			x, okx := member(ma[name], ch.ID)
			y, oky := member(mb[name], ch.ID)
			if !okx || !oky {
				t.Fatalf("changed member %s/%s is not on both sides", name, ch.ID)
			}
			for _, change := range ch.Changes {
				px, okpx := resolve(x, change.Path)
				py, okpy := resolve(y, change.Path)
				if okpx == okpy && equal(px, py) {
					t.Fatalf("%s/%s %s reported but equal", name, ch.ID, change.Path)
				}
			}
		}
		for _, m := range c.Added {
			if _, ok := member(ma[name], m.ID); ok {
				t.Fatalf("added %s/%s was there before", name, m.ID)
			}
		}
		for _, m := range c.Removed {
			if _, ok := member(mb[name], m.ID); ok {
				t.Fatalf("removed %s/%s is still there", name, m.ID)
			}
		}
	}
}

// equal compares decoded values, numbers by their text as the diff does.
func equal(a, b any) bool {
	x, err1 := canon.Compact(a)
	y, err2 := canon.Compact(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

func member(coll any, id string) (any, bool) {
	switch c := coll.(type) {
	case map[string]any:
		v, ok := c[id]
		return v, ok
	case []any:
		for _, item := range c {
			if m, ok := item.(map[string]any); ok {
				if s, ok := m["id"].(string); ok && s == id {
					return m, true
				}
			}
		}
	}
	return nil, false
}

// resolve follows a JSON Pointer into a decoded value.
func resolve(v any, pointer string) (any, bool) {
	if pointer == "" {
		return v, true
	}
	for _, tok := range strings.Split(pointer[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := v.(type) {
		case map[string]any:
			x, ok := c[tok]
			if !ok {
				return nil, false
			}
			v = x
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			v = c[i]
		default:
			return nil, false
		}
	}
	return v, true
}
