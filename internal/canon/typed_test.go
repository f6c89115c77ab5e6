package canon

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"testing"
	"time"
)

type typedInner struct {
	Amount   float64 `json:"amount"`
	Currency string  `json:"currency"`
}

type typedState string

// typedAll has fields of every kind the typed encoder writes.
type typedAll struct {
	S       string             `json:"s"`
	Named   typedState         `json:"named"`
	B       bool               `json:"b"`
	I       int                `json:"i"`
	I8      int8               `json:"i8"`
	I16     int16              `json:"i16"`
	I32     int32              `json:"i32"`
	U       uint               `json:"u"`
	U8      uint8              `json:"u8"`
	U64     uint64             `json:"u64"`
	F32     float32            `json:"f32"`
	F       float64            `json:"f"`
	P       *string            `json:"p"`
	PE      *string            `json:"pe,omitempty"`
	Inner   typedInner         `json:"inner"`
	PInner  *typedInner        `json:"pinner"`
	List    []typedInner       `json:"list"`
	Strs    []string           `json:"strs,omitempty"`
	Arr     [2]int             `json:"arr"`
	Empty   [0]int             `json:"empty,omitempty"`
	M       map[string]int     `json:"m"`
	MNamed  map[typedState]any `json:"mnamed,omitempty"`
	Any     any                `json:"any"`
	Err     error              `json:"err"`
	Raw     json.RawMessage    `json:"raw"`
	Comp    Compacted          `json:"comp"`
	Num     json.Number        `json:"num"`
	OmitF   float64            `json:"omitf,omitempty"`
	OmitB   bool               `json:"omitb,omitempty"`
	OmitM   map[string]string  `json:"omitm,omitempty"`
	OmitAny any                `json:"omitany,omitempty"`
	NoTag   int
	Dash    int `json:"-"`
	DashC   int `json:"-,"`
	HTMLKey int `json:"a<b>&c"`
	hidden  int
}

type typedNode struct {
	Name     string       `json:"name"`
	Children []*typedNode `json:"children,omitempty"`
}

type typedTime struct {
	At time.Time `json:"at"`
}

type typedQuoted struct {
	N int `json:"n,string"`
}

type typedEmbedded struct {
	typedInner
	X int `json:"x"`
}

type typedBytes struct {
	B []byte `json:"b"`
}

func typedValues() []any {
	s := "pointed"
	neg := math.Copysign(0, -1)
	all := typedAll{
		S: "quote\" back\\ tab\t nl\n bell\a del\x7f <&> \u2028 \u2029 bad \xff\xfe Zoë 😀 \\u2028", Named: "open",
		B: true, I: -42, I8: -8, I16: 300, I32: -70000, U: 7, U8: 255, U64: math.MaxUint64, F32: 0.1, F: 1e21,
		P: &s, Inner: typedInner{1234.5, "USD"}, PInner: &typedInner{0.000001, ""}, List: []typedInner{{1, "a"}, {2e-7, "b"}},
		Arr: [2]int{1, 2}, M: map[string]int{"b": 2, "a": 1, "\xff": 3, "é": 4}, MNamed: map[typedState]any{"z": nil, "y": []any{1.5, "x"}},
		Any: map[string]any{"k": []any{true, nil, 3.0, "s", map[string]any{}}, "n": json.Number("12.50")},
		Err: errors.New("boom"), Raw: json.RawMessage(` { "a" : [1, "\u2028", "\ufffd"] } `), Comp: Compacted(`{"c":1}`),
		Num: "-0.5e10", OmitF: neg, NoTag: 3, Dash: 4, DashC: 5, hidden: 6,
	}
	return []any{
		all, &all, []typedAll{all, {}}, typedAll{}, &typedAll{}, map[string]typedAll{"x": all},
		typedNode{"root", []*typedNode{{"a", nil}, {"b", []*typedNode{{"c", []*typedNode{}}}}}},
		[]any{1, int8(2), uint16(3), float32(1.5), "x", nil, []string(nil), map[string]int(nil), (*typedInner)(nil)},
		map[string]any{"list": []typedInner{{1, "x"}}, "p": &typedInner{2, "y"}, "n": nil},
		[]float64{0, 1, -1, 1e20, 1e21, 1e-6, 1e-7, 123456789.125, math.SmallestNonzeroFloat64, math.MaxFloat64},
		[]float32{0, 1e20, 1e21, 1e-6, 1e-7, math.MaxFloat32, 3.4e-40},
		struct{ P *int }{}, struct{ M map[string]int }{map[string]int{"a": 1}}, [1]*int{}, [0]string{},
		json.Number(""), struct{ N json.Number }{},
	}
}

// Every value the typed encoder writes is what encoding/json writes for
// it, as Compact leaves it.
func TestTypedMatchesCompact(t *testing.T) {
	for _, v := range typedValues() {
		want, err := compactReference(v)
		if err != nil {
			t.Fatalf("%T: %v", v, err)
		}
		got, ok := appendTyped([]byte("x"), v)
		if !ok {
			t.Errorf("%T: the typed encoder left it to encoding/json", v)
			continue
		}
		if string(got) != "x"+string(want) {
			t.Errorf("%T:\n got %s\nwant %s", v, got[1:], want)
		}
		want, err = json.Marshal(v)
		if err != nil {
			t.Fatalf("%T: %v", v, err)
		}
		if got, ok := AppendMarshal([]byte("x"), v); !ok || string(got) != "x"+string(want) {
			t.Errorf("%T: AppendMarshal %v\n got %s\nwant %s", v, ok, got, want)
		}
	}
}

// What the typed encoder leaves to encoding/json, Compact still writes as
// encoding/json does, or refuses as it does.
func TestTypedLeavesTheRest(t *testing.T) {
	self := map[string]any{}
	self["self"] = self
	for _, v := range []any{
		typedTime{time.Unix(0, 0).UTC()}, typedQuoted{5}, typedEmbedded{typedInner{1, "x"}, 2}, typedBytes{[]byte("hi")},
		map[int]string{1: "a"}, math.NaN(), []float64{1, math.Inf(1)}, json.Number("1x"), json.RawMessage(`{`), json.RawMessage{},
		struct{ C chan int }{}, map[string]any{"f": func() {}}, self, twice(), struct {
			A int `json:"é"`
		}{1},
	} {
		if _, ok := appendTyped(nil, v); ok {
			t.Errorf("%T: written by the typed encoder, want it left to encoding/json", v)
		}
		if got, ok := AppendMarshal([]byte("x"), v); ok || string(got) != "x" {
			t.Errorf("%T: AppendMarshal wrote %q, want it left to json.Marshal", v, got)
		}
		want, werr := compactReference(v)
		got, gerr := Compact(v)
		if (werr == nil) != (gerr == nil) || string(got) != string(want) {
			t.Errorf("%T: Compact %q, %v; want %q, %v", v, got, gerr, want, werr)
		}
	}
}

// twice is a struct with two fields of one JSON name, which encoding/json
// drops (go vet refuses such a type written out).
func twice() any {
	t := reflect.StructOf([]reflect.StructField{
		{Name: "A", Type: reflect.TypeFor[int](), Tag: `json:"a"`},
		{Name: "B", Type: reflect.TypeFor[int](), Tag: `json:"a"`},
	})
	v := reflect.New(t).Elem()
	v.Field(0).SetInt(1)
	return v.Interface()
}

func FuzzTypedMatchesCompact(f *testing.F) {
	f.Add("a", "b\u2028", 1.5, int64(-3), uint64(7), float32(0.1), true)
	f.Add("\xff", `"\`, 1e21, int64(math.MinInt64), uint64(math.MaxUint64), float32(1e-7), false)
	f.Fuzz(func(t *testing.T, s1, s2 string, fl float64, n int64, u uint64, f32 float32, b bool) {
		v := typedAll{S: s1, Named: typedState(s2), B: b, I: int(n), I8: int8(n), I16: int16(n), I32: int32(n), U: uint(u), U8: uint8(u),
			U64: u, F32: f32, F: fl, P: &s2, PInner: &typedInner{fl, s1}, List: []typedInner{{float64(f32), s2}}, Strs: []string{s1, s2},
			M: map[string]int{s1: 1, s2: 2}, MNamed: map[typedState]any{typedState(s1): s2, "n": n}, Any: []any{s1, fl, b, nil},
			Num: json.Number(s1), Raw: json.RawMessage(s2), OmitF: fl, OmitB: b}
		want, werr := compactReference(v)
		got, ok := appendTyped(nil, v)
		switch {
		case ok && werr != nil:
			t.Fatalf("typed wrote %s where encoding/json fails: %v", got, werr)
		case ok && string(got) != string(want):
			t.Fatalf("\n got %s\nwant %s", got, want)
		}
		want, werr = json.Marshal(v)
		got, ok = AppendMarshal(nil, v)
		switch {
		case ok && werr != nil:
			t.Fatalf("AppendMarshal wrote %s where json.Marshal fails: %v", got, werr)
		case ok && string(got) != string(want):
			t.Fatalf("AppendMarshal\n got %s\nwant %s", got, want)
		}
		want, werr = compactReference(v)
		c, cerr := Compact(v)
		if (werr == nil) != (cerr == nil) || string(c) != string(want) {
			t.Fatalf("Compact %q, %v; want %q, %v", c, cerr, want, werr)
		}
	})
}
