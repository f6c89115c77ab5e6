package schema

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

func TestObject(t *testing.T) {
	got := Object(Props{"id": ID("OPP", "the deal"), "on": Date("when"), "kind": Enum("kind", "a", "b"), "note": Text("a note <b>")}, "id")
	want := `{"additionalProperties":false,"properties":{"id":{"description":"the deal","pattern":"^OPP-[0-9]+$","type":"string"},` +
		`"kind":{"description":"kind","enum":["a","b"],"type":"string"},"note":{"description":"a note <b>","minLength":1,"type":"string"},` +
		`"on":{"description":"when (YYYY-MM-DD)","pattern":"^[0-9]{4}-[0-9]{2}-[0-9]{2}$","type":"string"}},"required":["id"],"type":"object"}`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Object (-want +got):\n%s", diff)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(got)))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("s.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("s.json")
	if err != nil {
		t.Fatal(err)
	}
	for input, valid := range map[string]bool{
		`{"id":"OPP-1"}`:                      true,
		`{"id":"OPP-1","on":"2026-04-13"}`:    true,
		`{}`:                                  false,
		`{"id":"OPP-1","extra":1}`:            false,
		`{"id":"ACC-1"}`:                      false,
		`{"id":"OPP-1","kind":"c"}`:           false,
		`{"id":"OPP-1","note":""}`:            false,
		`{"id":"OPP-1","on":"13 April 2026"}`: false,
	} {
		v, _ := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(input)))
		if err := s.Validate(v); (err == nil) != valid {
			t.Errorf("Validate(%s) = %v, want valid=%v", input, err, valid)
		}
	}
}
