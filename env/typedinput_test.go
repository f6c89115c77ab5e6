package env

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type inputStatus string

type upperText string

func (u *upperText) UnmarshalText(b []byte) error {
	*u = upperText(strings.ToUpper(string(b)))
	return nil
}

// plainIn has a field of every kind the plan decodes, and of kinds it
// leaves to encoding/json.
type plainIn struct {
	S      string         `json:"s"`
	P      *string        `json:"p"`
	B      bool           `json:"b"`
	PB     *bool          `json:"pb,omitempty"`
	I      int            `json:"i"`
	I8     int8           `json:"i8"`
	U16    uint16         `json:"u16"`
	F      float64        `json:"f"`
	F32    float32        `json:"f32"`
	PF     *float64       `json:"pf"`
	L      []string       `json:"l"`
	LI     []int          `json:"li"`
	Named  inputStatus    `json:"named"`
	PNamed *inputStatus   `json:"pnamed"`
	N      json.Number    `json:"n"`
	M      map[string]any `json:"m"`
	Any    any            `json:"any"`
	Raw    []byte         `json:"raw"`
	Quoted int            `json:"quoted,string"`
	Upper  upperText      `json:"upper"`
	NoTag  string
	Dash   string `json:"-"`
	hidden string
}

type embeddedIn struct {
	plainIn
	X string `json:"x"`
}

// twiceIn has two fields of one JSON name, which encoding/json drops
// (go vet refuses such a type written out).
var twiceIn = reflect.StructOf([]reflect.StructField{
	{Name: "A", Type: reflect.TypeFor[string](), Tag: `json:"id"`},
	{Name: "B", Type: reflect.TypeFor[string](), Tag: `json:"id"`},
})

type oddTagIn struct {
	A string `json:"a\\b"`
	B string `json:"ünï"`
}

// decodeBoth decodes raw with Typed and with the json.Decoder Typed used
// before it had a plan, and reports any difference in value or error.
func decodeBoth[In any](t *testing.T, raw string) {
	t.Helper()
	var got In
	run := Typed(func(_ context.Context, _ *struct{}, in In) (any, error) {
		got = in
		return nil, nil
	})
	_, gotErr := run(context.Background(), &struct{}{}, json.RawMessage(raw))

	var want In
	var wantErr error
	if len(bytes.TrimSpace([]byte(raw))) > 0 {
		dec := json.NewDecoder(strings.NewReader(raw))
		dec.DisallowUnknownFields()
		dec.UseNumber()
		if err := dec.Decode(&want); err != nil {
			wantErr = &ToolError{Code: "invalid_input", Message: err.Error()}
		}
	}
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
		t.Fatalf("%T from %q: error %v, want %v", got, raw, gotErr, wantErr)
	}
	if wantErr != nil {
		return
	}
	if diff := cmp.Diff(want, got, cmp.Exporter(func(reflect.Type) bool { return true })); diff != "" {
		t.Fatalf("%T from %q (-encoding/json +Typed):\n%s", got, raw, diff)
	}
	// a nil slice and an empty one are told apart
	wv, gv := reflect.ValueOf(&want).Elem(), reflect.ValueOf(&got).Elem()
	if wv.Kind() == reflect.Struct {
		for i := range wv.NumField() {
			if f := wv.Field(i); f.Kind() == reflect.Slice && f.IsNil() != gv.Field(i).IsNil() {
				t.Fatalf("%T from %q: field %d nil %v, want %v", got, raw, i, gv.Field(i).IsNil(), f.IsNil())
			}
		}
	}
}

var typedInputs = []string{
	``, ` `, `{}`, ` { } `, `null`, `[]`, `"x"`, `1`, `{`, `{"s":"a"`, `{"s":"a"}x`, `{"s":"a"} {"s":"b"}`, `{"s":"a"}` + "\n",
	`{"s":"a","p":"b","b":true,"pb":false,"i":-12,"i8":127,"u16":65535,"f":1.5e3,"f32":-0.25,"pf":2,"l":["x","y"],"li":[1,2,3],"named":"open","pnamed":"won"}`,
	` {"s" : "a" , "l" : [ "x" , "y" ] } `,
	`{"s":"é ✓ \u00e9"}`, `{"s":"a\"b"}`, `{"s":"a\nb"}`, "{\"s\":\"a\x01b\"}", "{\"s\":\"\xff\"}", "{\"s\":\"\xe2\x80\xa8\"}",
	`{"s":null}`, `{"p":null}`, `{"pb":null}`, `{"l":null}`, `{"l":[]}`, `{"li":[]}`, `{"l":[null]}`, `{"l":[1]}`, `{"l":[["x"]]}`, `{"l":[{}]}`,
	`{"s":1}`, `{"i":"1"}`, `{"i":1.0}`, `{"i":1e2}`, `{"i":-0}`, `{"i":01}`, `{"i":1.}`, `{"i":.5}`, `{"i":9223372036854775808}`,
	`{"i8":128}`, `{"i8":-129}`, `{"u16":-1}`, `{"u16":65536}`, `{"f":1e400}`, `{"f32":1e39}`, `{"f":-}`, `{"f":1e}`, `{"f":1E+2}`,
	`{"b":"true"}`, `{"b":null}`, `{"b":tru}`, `{"b":truex}`,
	`{"S":"a"}`, `{"s":"a","S":"b"}`, `{"NoTag":"x"}`, `{"notag":"x"}`, `{"Dash":"x"}`, `{"-":"x"}`, `{"hidden":"x"}`, `{"unknown":1}`,
	`{"s":"a","s":"b"}`, `{"p":"a","p":null}`, `{"l":["a"],"l":["b","c"]}`, `{"l":["a","b"],"l":[]}`,
	`{"n":1}`, `{"n":"2"}`, `{"n":"x"}`, `{"m":{"a":1}}`, `{"any":[1,"x",null]}`, `{"raw":"aGk="}`, `{"quoted":"12"}`, `{"upper":"abc"}`,
	`{"s":"a",}`, `{,"s":"a"}`, `{"s" "a"}`, `{"s":}`, `{"s":"a" "i":1}`, `{"\u0073":"a"}`,
}

func TestTypedDecodesAsEncodingJSON(t *testing.T) {
	for _, raw := range typedInputs {
		decodeBoth[plainIn](t, raw)
		decodeBoth[embeddedIn](t, raw)
		decodeBoth[oddTagIn](t, raw)
		decodeBoth[struct{}](t, raw)
		decodeBoth[map[string]any](t, raw)
	}
	for _, raw := range []string{`{"id":"x"}`, `{"x":"y","s":"z"}`, `{"a\\b":"x"}`, `{"ünï":"x"}`} {
		decodeBoth[embeddedIn](t, raw)
		decodeBoth[oddTagIn](t, raw)
	}
}

func TestPlanCoversPlainInputs(t *testing.T) {
	for _, c := range []struct {
		t    reflect.Type
		plan bool
	}{
		{reflect.TypeFor[plainIn](), true},
		{reflect.TypeFor[struct{}](), true},
		{reflect.TypeFor[embeddedIn](), false},
		{twiceIn, false},
		{reflect.TypeFor[oddTagIn](), false},
		{reflect.TypeFor[map[string]any](), false},
		{reflect.TypeFor[*plainIn](), false},
	} {
		if got := planInput(c.t) != nil; got != c.plan {
			t.Errorf("planInput(%v) != nil is %v, want %v", c.t, got, c.plan)
		}
	}
	// a plain input is decoded by the plan, not handed on
	var in plainIn
	raw := `{"s":"a","p":"b","b":true,"i":-12,"f":1.5,"l":["x"],"li":[],"named":"open"}`
	if !planInput(reflect.TypeFor[plainIn]()).decode([]byte(raw), reflect.ValueOf(&in).UnsafePointer()) {
		t.Errorf("the plan left %s to encoding/json", raw)
	}
}

func FuzzTypedInput(f *testing.F) {
	for _, raw := range typedInputs {
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		decodeBoth[plainIn](t, raw)
		decodeBoth[oddTagIn](t, raw)
	})
}
