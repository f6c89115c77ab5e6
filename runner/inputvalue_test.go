package runner

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// decodeInput gives what jsonschema.UnmarshalJSON gives for any text it
// accepts, and accepts the runner's canonical JSON of any value.
func FuzzDecodeInput(f *testing.F) {
	for _, seed := range []string{
		`{"id":"E-1","n":[1,-2.5e3,{"a":null}],"t":true,"f":false}`, `[]`, `{}`, `"\u00e9\n\"\\"`, `{"a":1,"a":2}`,
		` { "a" : [ 1 , 2 ] } `, `1e400`, `-0`, `01`, `[1,]`, `{"a"}`, "\"\xff\"", `"\ud800"`, `tru`, `nulls`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want, werr := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		got, err := decodeInput(data)
		if err == nil {
			if werr != nil {
				t.Fatalf("decodeInput(%q) = %#v, jsonschema fails: %v", data, got, werr)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("decodeInput(%q) = %#v, jsonschema gives %#v", data, got, want)
			}
		}
		if werr != nil {
			return
		}
		if c, ok := canonical(data); ok {
			if got, err := decodeInput(c); err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("decodeInput(%q) = %#v, %v; want %#v", c, got, err, want)
			}
		}
	})
}
