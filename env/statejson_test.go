package env

import (
	"context"
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"unsafe"

	"github.com/google/go-cmp/cmp"
)

// spliceState has a field of every kind the state's JSON is made from the
// seed's for, a key json.Marshal escapes, and null and empty lists.
type spliceState struct {
	Now     string            `json:"now"`
	Items   []spliceItem      `json:"items"`
	Notes   []string          `json:"notes"`
	Labels  map[string]string `json:"labels"`
	Owner   *string           `json:"owner"`
	Pair    [2]float64        `json:"pair"`
	Meta    spliceMeta        `json:"meta"`
	Empty   []int             `json:"empty"`
	Nil     []int             `json:"nil"`
	Escaped string            `json:"<esc>"`
	Plain   int
}

type spliceItem struct {
	ID     string   `json:"id"`
	Amount float64  `json:"amount"`
	Tags   []string `json:"tags"`
	Ref    *string  `json:"ref"`
	Flag   bool     `json:"flag"`
}

type spliceMeta struct {
	Version int    `json:"version"`
	By      string `json:"by"`
}

func spliceSeed() *spliceState {
	ref, owner := "R-1", "USR-1"
	return &spliceState{
		Now: "2026-03-16T09:00:00Z",
		Items: []spliceItem{
			{ID: "I-1", Amount: 1.5, Tags: []string{"a", "b"}, Ref: &ref},
			{ID: "I-2", Amount: -2, Tags: []string{}, Flag: true},
			{ID: "I-3 <&>", Amount: 1e21, Tags: nil},
		},
		Notes: []string{"n1", "\u2028"}, Labels: map[string]string{"k": "v", "a": "b"}, Owner: &owner,
		Pair: [2]float64{0.1, 3}, Meta: spliceMeta{Version: 1, By: "seed"}, Empty: []int{}, Escaped: "<tag>", Plain: 7,
	}
}

// spliceOps are the ways a tool can change a spliceState: in place, deep
// inside, through pointers, by appending, deleting and moving, and by
// writing what is already there (equal values in other memory).
var spliceOps = []func(s *spliceState, n int){
	func(s *spliceState, n int) { s.Now = "2026-03-17T00:00:00Z" },
	func(s *spliceState, n int) {
		if len(s.Items) > 0 {
			s.Items[n%len(s.Items)].Amount = float64(n) / 4
		}
	},
	func(s *spliceState, n int) { s.Items = append(s.Items, spliceItem{ID: "I-new", Tags: []string{"x"}}) },
	func(s *spliceState, n int) {
		if len(s.Items) > 0 {
			i := n % len(s.Items)
			s.Items = slices.Delete(s.Items, i, i+1)
		}
	},
	func(s *spliceState, n int) {
		if len(s.Items) > 0 {
			if it := &s.Items[n%len(s.Items)]; len(it.Tags) > 0 {
				it.Tags[0] = "changed"
			}
		}
	},
	func(s *spliceState, n int) {
		if len(s.Items) > 0 {
			it := &s.Items[n%len(s.Items)]
			if it.Ref == nil {
				r := "R-new"
				it.Ref = &r
			} else if n%2 == 0 {
				it.Ref = nil
			} else {
				*it.Ref = "R-changed"
			}
		}
	},
	func(s *spliceState, n int) { s.Notes = append(s.Notes, "more") },
	func(s *spliceState, n int) {
		if len(s.Notes) > 0 {
			s.Notes[0] = "changed"
		}
	},
	func(s *spliceState, n int) { s.Labels["k"] = "changed" },
	func(s *spliceState, n int) { *s.Owner = "USR-2" },
	func(s *spliceState, n int) { s.Pair[1] = math.Copysign(0, -1) },
	func(s *spliceState, n int) { s.Meta.Version++ },
	func(s *spliceState, n int) { s.Empty, s.Nil = nil, []int{} },
	func(s *spliceState, n int) {
		for i := range s.Items {
			s.Items[i].ID = strings.Clone(s.Items[i].ID)
		}
		s.Now = strings.Clone(s.Now)
	},
	func(s *spliceState, n int) { s.Items = nil },
	func(s *spliceState, n int) {
		if len(s.Items) > 1 {
			s.Items[0], s.Items[1] = s.Items[1], s.Items[0]
		}
	},
	func(s *spliceState, n int) { s.Escaped, s.Plain = "</tag>", n },
	func(s *spliceState, n int) {
		if len(s.Items) > 0 {
			s.Items[n%len(s.Items)].Flag = !s.Items[n%len(s.Items)].Flag
		}
	},
}

// checkStateJSON applies ops (two bytes each: which, and an argument) to a
// copy of the seed and compares the state's JSON made from the seed's with
// json.Marshal's.
func checkStateJSON(t *testing.T, ops []byte) {
	t.Helper()
	typ := reflect.TypeFor[spliceState]()
	fields := stateFields(typ)
	if !splicedFields(typ, fields) {
		t.Fatal("spliceState's JSON is not made from its seed's")
	}
	seed := spliceSeed()
	seedJSON, err := json.Marshal(seed)
	if err != nil {
		t.Fatal(err)
	}
	l := layoutOf(seedJSON, unsafe.Pointer(seed), fields)
	if l == nil {
		t.Fatalf("no layout of %s", seedJSON)
	}
	s, err := Clone(seed)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(ops); i += 2 {
		spliceOps[int(ops[i])%len(spliceOps)](s, int(ops[i+1]))
	}
	got, err := appendStateJSON(nil, unsafe.Pointer(s), unsafe.Pointer(seed), fields, l)
	if err != nil {
		t.Fatal(err)
	}
	want, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("ops %v: the state's JSON (-json.Marshal +made from the seed's):\n%s", ops, diff)
	}
	if again, _ := json.Marshal(seed); string(again) != string(seedJSON) {
		t.Errorf("ops %v changed the seed", ops)
	}
}

func TestStateJSON(t *testing.T) {
	checkStateJSON(t, nil)
	for op := range spliceOps {
		for arg := range 4 {
			checkStateJSON(t, []byte{byte(op), byte(arg)})
		}
	}
	for a := range spliceOps {
		for b := range spliceOps {
			checkStateJSON(t, []byte{byte(a), 1, byte(b), 2})
		}
	}
}

func FuzzStateJSON(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{2, 0, 3, 0, 5, 1, 13, 0})
	f.Add([]byte{15, 0, 4, 0, 3, 2, 14, 0, 2, 0})
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 64 {
			ops = ops[:64]
		}
		checkStateJSON(t, ops)
	})
}

// A field written with an option that makes its presence or form depend
// on its value, a name json.Marshal writes otherwise, or a seed whose JSON
// is not the fields in order: the state's JSON is encoded whole.
func TestStateJSONFallsBack(t *testing.T) {
	type omit struct {
		A string `json:"a,omitempty"`
	}
	type quoted struct {
		N int `json:"n,string"`
	}
	type embedded struct{ spliceMeta }
	type mapState map[string]int
	for _, typ := range []reflect.Type{reflect.TypeFor[omit](), reflect.TypeFor[quoted](), reflect.TypeFor[embedded](), reflect.TypeFor[mapState]()} {
		if splicedFields(typ, stateFields(typ)) {
			t.Errorf("%s: the state's JSON is made from the seed's", typ)
		}
	}
	type badName struct {
		A string `json:"a\""` // not a valid name: json.Marshal writes "A"
	}
	typ := reflect.TypeFor[badName]()
	seed := &badName{A: "x"}
	data, _ := json.Marshal(seed)
	if l := layoutOf(data, unsafe.Pointer(seed), stateFields(typ)); l != nil {
		t.Errorf("a layout of %s for the field named %q", data, stateFields(typ)[0].name)
	}
	typ = reflect.TypeFor[spliceState]()
	good := spliceSeed()
	for _, data := range []string{`{}`, `{"now":"x"}`, `[]`, ``, `{"now":"x","items":[1,2]}`} {
		if l := layoutOf([]byte(data), unsafe.Pointer(good), stateFields(typ)); l != nil {
			t.Errorf("a layout of %s", data)
		}
	}
}

// A tool that writes where its Writes does not say, in place, is seen in
// the final state's JSON as it is when the whole state is encoded: the
// seed, not the rollout's memory, is what the state is compared with.
func TestStateJSONSeesUndeclaredWrites(t *testing.T) {
	seed := spliceSeed()
	lying := func(_ context.Context, s *spliceState, _ json.RawMessage) (any, error) {
		s.Meta.Version = 2
		s.Notes[0] = "undeclared"
		*s.Owner = "undeclared"
		s.Items[0].Tags[1] = "undeclared"
		*s.Items[0].Ref = "undeclared"
		s.Labels["k"] = "undeclared"
		return "ok", nil
	}
	e, err := New(Definition[spliceState]{
		Name:      "splice",
		TaskFiles: fstest.MapFS{"tasks/TASK-001.json": {Data: []byte(oneTask)}},
		Seed:      func(Task) (*spliceState, error) { return seed, nil },
		Tools:     []Tool[spliceState]{{Name: "lying", Writes: []string{"meta"}, Run: lying}},
		Verifiers: []Verifier[spliceState]{{ID: "VER-001", TaskID: "TASK-001", Name: "v",
			Check: func(*spliceState, *spliceState, VerifyContext) []CheckResult {
				return []CheckResult{Check("ok", true, "")}
			}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	w := openTask(t, e)
	if ww := w.(*world[spliceState]); ww.seed == nil || ww.seed.layoutIn(ww.env) == nil {
		t.Fatal("the world does not make its state's JSON from the seed's")
	}
	if _, err := call(t, w, "lying"); err != nil {
		t.Fatal(err)
	}
	want, err := json.Marshal(w.(*world[spliceState]).state)
	if err != nil {
		t.Fatal(err)
	}
	got := state(t, w)
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("final state (-encoded whole +made from the seed's):\n%s", diff)
	}
	if n := strings.Count(got, "undeclared"); n != 5 {
		t.Errorf("%d of the 5 undeclared writes are in the final state %s", n, got)
	}
}

// What json.Marshal cannot encode is an error here too.
func TestStateJSONError(t *testing.T) {
	typ := reflect.TypeFor[spliceState]()
	fields := stateFields(typ)
	seed := spliceSeed()
	seedJSON, _ := json.Marshal(seed)
	l := layoutOf(seedJSON, unsafe.Pointer(seed), fields)
	s, _ := Clone(seed)
	s.Items[1].Amount = math.NaN()
	_, err := appendStateJSON(nil, unsafe.Pointer(s), unsafe.Pointer(seed), fields, l)
	if err == nil || !strings.Contains(err.Error(), "state does not marshal to JSON: json: unsupported value: NaN") {
		t.Errorf("err = %v", err)
	}
}

// BenchmarkStateJSON is the final state's JSON of a rollout that changed
// one item of 100, made from the seed's JSON and by json.Marshal.
func BenchmarkStateJSON(b *testing.B) {
	typ := reflect.TypeFor[spliceState]()
	fields := stateFields(typ)
	seed := spliceSeed()
	for i := range 100 {
		ref := "R-" + strings.Repeat("x", i%7)
		seed.Items = append(seed.Items, spliceItem{ID: "I-" + strings.Repeat("y", i%5), Amount: float64(i), Tags: []string{"a", "b"}, Ref: &ref})
	}
	seedJSON, _ := json.Marshal(seed)
	l := layoutOf(seedJSON, unsafe.Pointer(seed), fields)
	s, _ := Clone(seed)
	s.Items[50].Amount = -1
	b.Run("seed", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			out := make([]byte, 0, len(seedJSON)+len(seedJSON)/8) // as the world makes it
			if _, err := appendStateJSON(out, unsafe.Pointer(s), unsafe.Pointer(seed), fields, l); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("marshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(s); err != nil {
				b.Fatal(err)
			}
		}
	})
}
