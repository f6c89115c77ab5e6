package statediff

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// The scanner accepts exactly what json.Valid accepts, nesting depth
// included.
func TestScannerMatchesValid(t *testing.T) {
	deep := func(n int) string {
		return `{"c":` + strings.Repeat("[", n-2) + strings.Repeat("]", n-2) + `}`
	}
	inputs := []string{
		`{}`, ` { } `, `{"a":1}`, `{"a":-0.5e+10}`, `{"a":01}`, `{"a":1.}`, `{"a":.5}`, `{"a":-}`, `{"a":1e}`,
		`{"a":"\u00e9\n\""}`, `{"a":"\x"}`, `{"a":"\u12"}`, "{\"a\":\"tab\there\"}", `{"a":tru}`, `{"a":true}`,
		`{"a":nul}`, `{"a":[1,]}`, `{"a":[,1]}`, `{"a":{"b":1,}}`, `{"a":1}x`, `{"a":1} {}`, `{"a" 1}`, `{a:1}`,
		`{"c":[{"id":"x"},{"id":"y"}]}`, `{"c":[{"id":"x"},{"id":"x"}]}`, `{"c":[{"id":1},2,"s",null]}`,
		`{"c":[{"id":"x","v":[1,{"w":{}}]}]}`, `{"c":[{"id":"x"}`, `{"c":[{"id":"x",}]}`, "{\"a\":\"\xff\"}",
		`{"\u0069d":{"id":"x"}}`, `{"c":[{"\u0069d":"x"}]}`, `[]`, `"s"`, ``,
		deep(10000), deep(10001),
	}
	for _, in := range inputs {
		_, err := new(lists).topLevel([]byte(in), nil)
		want := json.Valid([]byte(in)) && bytes.HasPrefix(bytes.TrimSpace([]byte(in)), []byte("{"))
		if got := err == nil; got != want {
			name := in
			if len(name) > 40 {
				name = name[:40] + "…"
			}
			t.Errorf("%q: accepted %v, json.Valid says %v (%v)", name, got, want, err)
		}
	}
}

func FuzzScannerMatchesValid(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"c":[{"id":"x"}]}`, `{"a":"\u00e9"}`, `{"a":[1,2,{"b":null}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := new(lists).topLevel(data, nil)
		want := json.Valid(data) && bytes.HasPrefix(bytes.TrimSpace(data), []byte("{"))
		if got := err == nil; got != want {
			t.Fatalf("%q: accepted %v, json.Valid says %v (%v)", data, got, want, err)
		}
	})
}
