package statediff

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agent-oracle/oracle/internal/canon"
	"github.com/google/go-cmp/cmp"
)

// The state after is scanned with the state before as a guide; these pairs
// share most of their bytes in the ways that could mislead the guide, and
// the diff must still be the reference's, byte for byte.
func TestComputeMatchesReference(t *testing.T) {
	members := func(ids ...string) string {
		var parts []string
		for _, id := range ids {
			parts = append(parts, fmt.Sprintf(`{"id":%q,"v":%q}`, id, "value of "+id))
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	tests := []struct{ name, before, after string }{
		{"same", `{"c":` + members("a", "b", "c") + `}`, `{"c":` + members("a", "b", "c") + `}`},
		{"inserted in the middle", `{"c":` + members("a", "b", "d") + `}`, `{"c":` + members("a", "b", "c", "d") + `}`},
		{"removed in the middle", `{"c":` + members("a", "b", "c", "d") + `}`, `{"c":` + members("a", "d") + `}`},
		{"unsorted, one removed", `{"c":` + members("d", "b", "a", "c") + `}`, `{"c":` + members("d", "a", "c") + `}`},
		{"reordered", `{"c":` + members("a", "b", "c") + `}`, `{"c":` + members("c", "a", "b") + `}`},
		{"repeated id after", `{"c":` + members("a", "b") + `}`, `{"c":` + members("a", "b", "b") + `}`},
		{"repeated id before", `{"c":` + members("a", "a", "b") + `}`, `{"c":` + members("a", "b") + `}`},
		{"item no longer an object", `{"c":` + members("a", "b") + `}`, `{"c":[{"id":"a","v":"value of a"},1]}`},
		{"number that grows", `{"n":1,"o":{"k":1,"j":2.5}}`, `{"n":12,"o":{"k":12,"j":2.5e3}}`},
		{"literal that changes", `{"o":{"k":true,"l":null}}`, `{"o":{"k":false,"l":null}}`},
		{"repeated key before", `{"o":{"k":1,"k":2}}`, `{"o":{"k":1}}`},
		{"repeated key after", `{"o":{"k":1}}`, `{"o":{"k":1,"k":2}}`},
		{"repeated top-level key", `{"c":[1],"c":[2]}`, `{"c":[2],"c":[1]}`},
		{"escaped id equal to a plain one", `{"c":[{"id":"a","v":1}]}`, `{"c":[{"id":"\u0061","v":1}]}`},
		{"escaped key in an object collection", `{"o":{"a":1,"b":2}}`, `{"o":{"\u0061":1,"b":3}}`},
		{"collection becomes an object", `{"c":` + members("a") + `}`, `{"c":{"a":{"id":"a","v":"value of a"}}}`},
		{"whitespace", `{ "c" : [ {"id":"a", "v":1} , {"id":"b","v":2} ] }`, `{"c":[{"id":"a","v":1},{"id":"b", "v":2}]}`},
		{"keys out of order", `{"c":[{"id":"a","v":{"y":1,"x":[1,{"b":1,"a":2}]}}]}`, `{"c":[{"id":"a","v":{"y":2,"x":[1,{"b":1,"a":3}]}}]}`},
		{"strings to re-encode", `{"c":[{"id":"a","v":"x\u2028\"\ud800é"}]}`, `{"c":[{"id":"a","v":"x\u2028\"\ud800e\u0301","w":"\/\u00e9"}]}`},
		{"invalid UTF-8", "{\"c\":[{\"id\":\"\xff\",\"v\":\"\xfe\"}]}", "{\"c\":[{\"id\":\"\xff\",\"v\":\"\xfd\"},{\"id\":\"\xfe\"}]}"},
	}
	// a change at every level reports a path as long as the nesting at
	// every level, so those nest less deeply
	deep := func(n int, open, close, leaf string) string {
		return `{"c":[{"id":"a","v":` + strings.Repeat(open, n) + leaf + strings.Repeat(close, n) + `}]}`
	}
	tests = append(tests,
		struct{ name, before, after string }{"deep arrays", deep(9000, "[", "]", "1"), deep(9000, "[", "]", "2")},
		struct{ name, before, after string }{"deep arrays, one more item at each level", deep(500, "[", "]", "1"), deep(500, "[", ",0]", "1")},
		struct{ name, before, after string }{"deep objects", deep(9000, `{"k":`, "}", "1"), deep(9000, `{"k":`, "}", "[1]")},
		struct{ name, before, after string }{"deep objects out of order", deep(500, `{"z":1,"k":`, "}", "1"), deep(500, `{"z":2,"k":`, `,"a":0}`, "1")},
	)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sameAsReference(t, []byte(tt.before), []byte(tt.after))
			sameAsReference(t, []byte(tt.after), []byte(tt.before))
		})
	}
}

// Random edits of a state of a hundred members: changed, added, removed,
// moved and duplicated members, in sorted and unsorted collections.
func TestComputeMatchesReferenceOnEdits(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 200 {
		ids := make([]string, 100)
		for i := range ids {
			ids[i] = fmt.Sprintf("M-%03d", i)
		}
		if n%2 == 1 {
			r.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
		}
		value := func(id string, version int) string {
			return fmt.Sprintf(`{"id":%q,"n":%d,"tags":["a","b"],"o":{"k":%d,"s":"x"}}`, id, version, version%3)
		}
		var before, after []string
		seq := map[string]int{}
		for _, id := range ids {
			before = append(before, value(id, 0))
			switch k := r.IntN(40); {
			case k == 0: // removed
			case k == 1: // changed
				after = append(after, value(id, 1+r.IntN(5)))
				seq[id] = 1
			case k == 2: // added after it
				after = append(after, value(id, 0), value(id+"+", 0))
			case k == 3 && len(after) > 0: // moved before the previous one
				after = append(after[:len(after)-1], value(id, 0), after[len(after)-1])
			case k == 4 && n%10 == 0: // repeated
				after = append(after, value(id, 0), value(id, 0))
			default:
				after = append(after, value(id, 0))
			}
		}
		state := func(list []string, seq map[string]int) []byte {
			var keys []string
			for k, v := range seq {
				keys = append(keys, fmt.Sprintf("%q:%d", k, v))
			}
			slices.Sort(keys)
			return []byte(`{"now":"t","c":[` + strings.Join(list, ",") + `],"seq":{` + strings.Join(keys, ",") + `}}`)
		}
		sameAsReference(t, state(before, nil), state(after, seq))
	}
}

func sameAsReference(t *testing.T, before, after []byte) {
	t.Helper()
	if err := compareWithReference(before, after); err != nil {
		t.Fatal(err)
	}
}

// compareWithReference says how Compute and Marshal differ from the
// reference and from canon.Marshal for before and after.
func compareWithReference(before, after []byte) error {
	d, err := Compute(before, after)
	if err != nil {
		return err
	}
	got, err := d.Marshal()
	if err != nil {
		return err
	}
	if viaCanon, _ := canon.Marshal(d); !bytes.Equal(got, viaCanon) {
		return fmt.Errorf("Marshal differs from canon.Marshal:\n%s", cmp.Diff(string(viaCanon), string(got)))
	}
	ref, err := reference(before, after)
	if err != nil {
		return err
	}
	want, err := ref.Marshal()
	if err != nil {
		return err
	}
	if !bytes.Equal(got, want) {
		return fmt.Errorf("%s\n→ %s\ndiffers from the reference (-want +got):\n%s", before, after, cmp.Diff(string(want), string(got)))
	}
	return nil
}

// The scans of states before are kept between calls: a caller that
// changes its buffer afterwards, and callers diffing at the same time,
// still get the diff of what they pass.
func TestComputeKeptScans(t *testing.T) {
	before := []byte(`{"c":[{"id":"b","v":1},{"id":"a","v":2}],"o":{"y":1,"x":2},"n":1}`)
	after := []byte(`{"c":[{"id":"a","v":3},{"id":"b","v":1}],"o":{"x":2,"y":5},"n":2}`)
	sameAsReference(t, before, after)
	sameAsReference(t, before, after) // from the kept scan, which sorting must not have changed
	copy(before[bytes.Index(before, []byte(`"v":1`)):], `"v":7`)
	sameAsReference(t, before, after)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				b := fmt.Appendf(nil, `{"c":[{"id":"a","v":%d},{"id":"b","v":%d}],"n":%d}`, g, i, i%3)
				a := fmt.Appendf(nil, `{"c":[{"id":"a","v":%d},{"id":"c","v":%d}],"n":%d}`, g, i, i%2)
				if err := compareWithReference(b, a); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// A value of the state after that starts with the bytes of its
// counterpart before is only taken as the same when it ends where that
// one ends: what follows is still checked, so that sharing bytes with a
// valid state before never passes an invalid state after.
func TestComputeRejectsInvalidAfterSharingBytes(t *testing.T) {
	before := `{"c":[{"id":"a","v":1},{"id":"b","v":[2]}],"o":{"k":1,"s":"x"},"n":1,"t":true}`
	for _, after := range []string{
		`{"c":[{"id":"a","v":1},{"id":"b","v":[2]}}`,
		`{"c":[{"id":"a","v":1},{"id":"b","v":[2]}]],"o":{"k":1,"s":"x"},"n":1,"t":true}`,
		`{"c":[{"id":"a","v":1},{"id":"b","v":[2]},],"o":{"k":1,"s":"x"},"n":1,"t":true}`,
		`{"c":[{"id":"a","v":1}{"id":"b","v":[2]}],"o":{"k":1,"s":"x"},"n":1,"t":true}`,
		`{"c":[{"id":"a","v":1},{"id":"b","v":[2]}],"o":{"k":1x,"s":"x"},"n":1,"t":true}`,
		`{"c":[{"id":"a","v":1},{"id":"b","v":[2]}],"o":{"k":1,"s":"x",},"n":1,"t":true}`,
		`{"c":[{"id":"a","v":1},{"id":"b","v":[2]}],"o":{"k":1,"s":"x"},"n":1.,"t":true}`,
		`{"c":[{"id":"a","v":1},{"id":"b","v":[2]}],"o":{"k":1,"s":"x"},"n":1,"t":truex}`,
		`{"c":[{"id":"a","v":1},{"id":"b","v":[2]}],"o":{"k":1,"s":"x"},"n":1,"t":true}}`,
		`{"c":[{"id":"a","v":1},{"id":"b","v":[2]}],"o":{"k":1,"s":"x"},"n":1,"t":true`,
		`{"c":[{"id":"a","v":1},{"id":"b","v":[2]}],"o":{"k":1,"s":"x"},"n":1,"t":true} x`,
	} {
		if _, err := Compute([]byte(before), []byte(after)); err == nil {
			t.Errorf("Compute accepted %s", after)
		}
	}
}
