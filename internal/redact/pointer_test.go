package redact

import "testing"

// selectsPointer reports whether the path of c selects the value at the
// pointer p.
func selectsPointer(c *compiled, p string) bool {
	s := c.start()
	for _, k := range splitPointer(p) {
		if s = c.step(s, []byte(k)); s == 0 {
			return false
		}
	}
	return c.selects(s)
}

func TestSelectorMatching(t *testing.T) {
	tests := []struct {
		path string
		yes  []string
		no   []string
	}{
		{"", []string{""}, []string{"/a", "/0"}},
		{"/a", []string{"/a"}, []string{"", "/b", "/a/b", "/A"}},
		{"/*", []string{"/a", "/0", "/*", "/"}, []string{"", "/a/b"}},
		{"/*/output/createdAt", []string{"/0/output/createdAt", "/17/output/createdAt"}, []string{"/0/output", "/0/input/createdAt", "/0/output/createdAt/x", "/output/createdAt"}},
		{"/**", []string{"", "/a", "/a/b/c"}, nil},
		{"/**/id", []string{"/id", "/a/id", "/0/x/1/id"}, []string{"/a", "/id/x", "/ids"}},
		{"/a/**/c", []string{"/a/c", "/a/b/c", "/a/b/b/c", "/a/c/c"}, []string{"/a", "/a/b", "/c", "/a/c/d"}},
		{"/a/**", []string{"/a", "/a/b", "/a/b/c"}, []string{"", "/b"}},
		{"/*/**", []string{"/a", "/a/b"}, []string{""}},
		{"/**/**/x", []string{"/x", "/a/x", "/a/b/x"}, []string{"/a"}},
		{"/*/*", []string{"/a/b"}, []string{"/a", "/a/b/c"}},
		{"/~2", []string{"/*"}, []string{"/a", "/**"}},
		{"/~2~2", []string{"/**"}, []string{"/*", "/a"}},
		{"/a~2b", []string{"/a*b"}, []string{"/ab", "/axb"}},
		{"/a~1b", []string{"/a~1b"}, []string{"/a/b"}},
		{"/~0", []string{"/~0"}, []string{"/~1", "/0"}},
		{"/0", []string{"/0"}, []string{"/00", "/1"}},
		{"/", []string{"/"}, []string{"", "/a"}}, // the key ""
		{"//x", []string{"//x"}, []string{"/x"}},
	}
	for _, tt := range tests {
		c := anyReach(t, Whole(Result, tt.path)).list[0]
		for _, p := range tt.yes {
			if !selectsPointer(c, p) {
				t.Errorf("%q does not select %q", tt.path, p)
			}
		}
		for _, p := range tt.no {
			if selectsPointer(c, p) {
				t.Errorf("%q selects %q", tt.path, p)
			}
		}
	}
}

func TestPointerEscapes(t *testing.T) {
	for key, want := range map[string]string{"a": "a", "a/b": "a~1b", "~": "~0", "~1": "~01", "*": "*", "": ""} {
		if got := escapeKey(key); got != want {
			t.Errorf("escapeKey(%q) = %q, want %q", key, got, want)
		}
		if got := splitPointer("/" + escapeKey(key)); len(got) != 1 || got[0] != key {
			t.Errorf("splitPointer(/%s) = %q, want [%q]", escapeKey(key), got, key)
		}
	}
	// a key written as a rule's path selects that key and nothing else
	for _, key := range []string{"*", "**", "a*", "~2", "a/b", "~", ""} {
		r, err := New(Whole(Result, "/"+selectorKey(key)))
		if err != nil {
			t.Fatalf("%q: %v", key, err)
		}
		if !selectsPointer(r.list[0], "/"+escapeKey(key)) || selectsPointer(r.list[0], "/other") {
			t.Errorf("path %q does not select exactly the key %q", selectorKey(key), key)
		}
	}
}
