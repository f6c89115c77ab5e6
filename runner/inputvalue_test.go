package runner

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/agent-oracle/oracle/internal/safeio"
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

// decodeInput decodes input nested as deep as an artifact may be
// (safeio.MaxDepth) to jsonschema's values, and leaves deeper input to it.
func TestDecodeInputDepth(t *testing.T) {
	for _, n := range []int{safeio.MaxDepth - 1, safeio.MaxDepth, safeio.MaxDepth + 1} {
		data := []byte(strings.Repeat("[", n) + "1" + strings.Repeat("]", n))
		want, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeInput(data)
		switch {
		case n <= safeio.MaxDepth && (err != nil || !reflect.DeepEqual(got, want)):
			t.Errorf("nested %d: %v; want jsonschema's values", n, err)
		case n > safeio.MaxDepth && err != errNotSimple:
			t.Errorf("nested %d: %v; want it left to jsonschema (errNotSimple)", n, err)
		}
	}
}
