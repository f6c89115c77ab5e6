package statediff

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/agent-oracle/oracle/internal/canon"
	"github.com/google/go-cmp/cmp"
)

// Marshal writes what canon.Marshal writes for any diff, the ones Compute
// never makes included, and fails where it fails.
func TestMarshalMatchesCanon(t *testing.T) {
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	diffs := []*Diff{
		{},
		{Scalars: []Change{}, Collections: map[string]*Collection{}},
		{Scalars: []Change{{Field: "a", Op: Replace, From: raw(`1`), To: raw(`{"b":[1,{"c":{}},[]],"d":"e"}`)}}},
		{Scalars: []Change{{Field: "a", Op: Add, To: raw(` 1`)}}},
		{Scalars: []Change{{Field: "a", Op: Add, To: raw(`1 `)}}},
		{Scalars: []Change{{Field: "a", Op: Add, To: raw(`{"a": 1 } `)}}},
		{Scalars: []Change{{Field: "a", Op: Add, To: raw(`{"a" : [ 1 , 2 ] }`)}}},
		{Scalars: []Change{{Field: "a", Op: Add, To: raw(`{"a":`)}}},
		{Scalars: []Change{{Field: "a", Op: Add, To: raw(`tru`)}}},
		{Scalars: []Change{{Field: "a", Op: Add, To: raw(`"\u2028\ufffd\\u2028"`)}}},
		{Scalars: []Change{{Field: "a", Op: Add, To: raw("\"\xff\"")}}},
		{Scalars: []Change{{Field: "a\"\\\n\x01<>&\u2028\xff", Path: "/x", Op: "op\t", From: raw(`null`), To: raw(`-1.5e3`)}}},
		{Scalars: []Change{{Op: ""}}},
		{Collections: map[string]*Collection{"b": nil, "a": {}}},
		{Collections: map[string]*Collection{"c": {
			Added:   []Member{{ID: "x", Value: raw(`{"id":"x","v":[{"w":1}]}`)}, {ID: "y"}, {ID: "z", Value: raw(``)}},
			Removed: []Member{},
			Changed: []Changed{{ID: "k"}, {ID: "l", Changes: []Change{}}, {ID: "m", Changes: []Change{{Path: "/a~1b", Op: Remove, From: raw(`[[[]]]`)}}}},
		}}},
	}
	for i, d := range diffs {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			want, wantErr := canon.Marshal(d)
			got, err := d.Marshal()
			if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
				t.Fatalf("error %v, canon.Marshal's %v", err, wantErr)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("bytes (-canon.Marshal +Marshal):\n%s", diff)
			}
		})
	}
}

func FuzzMarshal(f *testing.F) {
	f.Add("a", "/b", "C-1", []byte(`{"x":[1,{"y":"\u2028"}],"z":{}}`))
	f.Add("a\"\n\xff", "", "\u2029", []byte(` [ 1 , 2 ] `))
	f.Fuzz(func(t *testing.T, field, path, id string, raw []byte) {
		v := json.RawMessage(raw)
		d := &Diff{
			Scalars: []Change{{Field: field, Op: Replace, From: v, To: v}},
			Collections: map[string]*Collection{id: {
				Added:   []Member{{ID: id, Value: v}},
				Changed: []Changed{{ID: path, Changes: []Change{{Path: path, Op: Op(field), To: v}}}},
			}},
		}
		want, wantErr := canon.Marshal(d)
		got, err := d.Marshal()
		if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
			t.Fatalf("error %v, canon.Marshal's %v", err, wantErr)
		}
		if string(got) != string(want) {
			t.Fatalf("bytes (-canon.Marshal +Marshal):\n%s", cmp.Diff(string(want), string(got)))
		}
	})
}
