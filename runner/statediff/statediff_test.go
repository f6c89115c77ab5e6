package statediff

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCompute(t *testing.T) {
	tests := []struct {
		name          string
		before, after string
		want          string
	}{
		{
			name:   "no change",
			before: `{"now":"2026-03-16","opportunities":[{"id":"OPP-1","amount":{"amount":100}}]}`,
			after:  `{"opportunities":[{"amount":{"amount":100},"id":"OPP-1"}],"now":"2026-03-16"}`,
			want:   `{"scalars":[],"collections":{}}`,
		},
		{
			name:   "amount inside one opportunity",
			before: `{"opportunities":[{"id":"OPP-005","amount":{"amount":120000,"currency":"USD"}},{"id":"OPP-006","amount":{"amount":5}}]}`,
			after:  `{"opportunities":[{"id":"OPP-005","amount":{"amount":118000,"currency":"USD"}},{"id":"OPP-006","amount":{"amount":5}}]}`,
			want:   `{"scalars":[],"collections":{"opportunities":{"added":[],"removed":[],"changed":[{"id":"OPP-005","changes":[{"path":"/amount/amount","op":"replace","from":120000,"to":118000}]}]}}}`,
		},
		{
			name:   "removed top-level key, change to null, change of type",
			before: `{"gone":1,"owner":"USR-1","flag":true,"n":1}`,
			after:  `{"owner":null,"flag":"true","n":1,"new":[1]}`,
			want: `{"scalars":[` +
				`{"field":"flag","op":"replace","from":true,"to":"true"},` +
				`{"field":"gone","op":"remove","from":1},` +
				`{"field":"new","op":"add","to":[1]},` +
				`{"field":"owner","op":"replace","from":"USR-1","to":null}],"collections":{}}`,
		},
		{
			name:   "added, removed and changed members, sorted by id, object collection",
			before: `{"items":[{"id":"b","v":1},{"id":"a","v":{"x":1,"y":[1,2]}}],"sequences":{"AUD":0,"OPP":3}}`,
			after:  `{"items":[{"id":"c","z":null,"v":2},{"id":"a","v":{"y":[1],"x":null}}],"sequences":{"AUD":2,"OPP":3}}`,
			want: `{"scalars":[],"collections":{` +
				`"items":{"added":[{"id":"c","value":{"id":"c","v":2,"z":null}}],"removed":[{"id":"b","value":{"id":"b","v":1}}],` +
				`"changed":[{"id":"a","changes":[{"path":"/v/x","op":"replace","from":1,"to":null},{"path":"/v/y/1","op":"remove","from":2}]}]},` +
				`"sequences":{"added":[],"removed":[],"changed":[{"id":"AUD","changes":[{"op":"replace","from":0,"to":2}]}]}}}`,
		},
		{
			name:   "removed field inside a member and a field set to null",
			before: `{"users":[{"id":"U1","managerId":"U0","email":"a@x"}]}`,
			after:  `{"users":[{"id":"U1","managerId":null}]}`,
			want:   `{"scalars":[],"collections":{"users":{"added":[],"removed":[],"changed":[{"id":"U1","changes":[{"path":"/email","op":"remove","from":"a@x"},{"path":"/managerId","op":"replace","from":"U0","to":null}]}]}}}`,
		},
		{
			name:   "collection becomes an object of the same members: a change of type",
			before: `{"c":[{"id":"a"}]}`,
			after:  `{"c":{"a":{"id":"a"}}}`,
			want:   `{"scalars":[{"field":"c","op":"replace","from":[{"id":"a"}],"to":{"a":{"id":"a"}}}],"collections":{}}`,
		},
		{
			name:   "array without ids is a scalar; numbers keep their text",
			before: `{"tags":["a"],"rate":1.10}`,
			after:  `{"tags":["a","b"],"rate":1.1}`,
			want:   `{"scalars":[{"field":"rate","op":"replace","from":1.10,"to":1.1},{"field":"tags","op":"replace","from":["a"],"to":["a","b"]}],"collections":{}}`,
		},
		{
			name:   "JSON Pointer escaping",
			before: `{"m":{"k":{"a/b":1,"c~d":1}}}`,
			after:  `{"m":{"k":{"a/b":2,"c~d":2}}}`,
			want:   `{"scalars":[],"collections":{"m":{"added":[],"removed":[],"changed":[{"id":"k","changes":[{"path":"/a~1b","op":"replace","from":1,"to":2},{"path":"/c~0d","op":"replace","from":1,"to":2}]}]}}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Compute([]byte(tt.before), []byte(tt.after))
			if err != nil {
				t.Fatal(err)
			}
			got, err := d.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			want, err := compactToIndented(tt.want)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, string(got)); diff != "" {
				t.Errorf("state diff (-want +got):\n%s", diff)
			}
			if d.Empty() != (tt.name == "no change") {
				t.Errorf("Empty() = %v", d.Empty())
			}
		})
	}
}

func TestComputeRejectsNonObjects(t *testing.T) {
	for _, s := range []string{``, `[]`, `1`, `"x"`, `{`} {
		if _, err := Compute([]byte(s), []byte(`{}`)); err == nil {
			t.Errorf("Compute(%q, {}) succeeded", s)
		}
		if _, err := Compute([]byte(`{}`), []byte(s)); err == nil {
			t.Errorf("Compute({}, %q) succeeded", s)
		}
	}
}

func TestMarshalIsIndentedWithNewline(t *testing.T) {
	d, err := Compute([]byte(`{"a":1}`), []byte(`{"a":2}`))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := d.Marshal()
	want := "{\n  \"scalars\": [\n    {\n      \"field\": \"a\",\n      \"op\": \"replace\",\n      \"from\": 1,\n      \"to\": 2\n    }\n  ],\n  \"collections\": {}\n}\n"
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("bytes (-want +got):\n%s", diff)
	}
	if strings.Contains(string(got), "\r") {
		t.Error("CR in output")
	}
}
