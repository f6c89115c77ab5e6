package host

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzParseMessage: any line is either refused or read; a line the fast
// path reads is read as the general decoder reads it.
func FuzzParseMessage(f *testing.F) {
	for _, seed := range []string{
		`{"type":"hello","protocol":1,"name":"x","tools":[],"verifiers":[]}`,
		`{"type":"state","id":3,"state":{"a":[1,2,{"b":null}]}}`,
		`{"type":"opened","id":1,"state":{}}`,
		`{"type":"opened","id":2,"same":true}`,
		`{"type":"result","id":12,"isError":false,"output":{"n":1}}`,
		`{"type":"result","id":12,"isError":true,"output":{"code":"x","message":"y"}}`,
		`{"type":"result","id":1,"isError":false,"output":1},"x":2}`,
		`{"type":"state","id":01,"state":{}}`,
		`{"type":"error","id":4,"error":{"code":"verifier_threw","message":"boom"}}`,
		`not json`, `[]`, `{}`, `{"type":"state","id":1,"state":`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		m, err := parseMessage(line, 1)
		if err != nil {
			return
		}
		if m.Type == "" {
			t.Fatalf("a message without a type: %q", line)
		}
		fast, ok := fastMessage(line)
		if !ok {
			return
		}
		var want message
		if err := json.Unmarshal(line, &want); err != nil {
			t.Fatalf("the fast path read %q, which does not decode: %v", line, err)
		}
		if fast.Type != want.Type || fast.ID != want.ID || fast.IsError != want.IsError ||
			!bytes.Equal(fast.State, want.State) || !bytes.Equal(fast.Output, want.Output) {
			t.Fatalf("%q: fast %+v, decoded %+v", line, fast, want)
		}
	})
}

// TestCheckResult reads a verifier's checks strictly: the kinds of the
// original runner's checks (required true or false) and oracle's own.
func TestCheckResult(t *testing.T) {
	for _, c := range []struct {
		in, kind, err string
		required      bool
	}{
		{`{"label":"a","passed":true,"detail":"","required":true}`, "required", "", true},
		{`{"label":"a","passed":false,"required":false}`, "optional", "", false},
		{`{"label":"a","passed":true,"required":true,"kind":"forbidden"}`, "forbidden", "", true},
		{`{"label":"a","passed":false,"kind":"coverage"}`, "coverage", "", false},
		{`{"label":"a","passed":false,"required":true,"kind":"optional"}`, "optional", "", false},
		{`{"label":"a","passed":"yes","required":true}`, "", `check 1 ("a") has no passed: it is a string, not a boolean`, false},
		{`{"passed":true}`, "", "check 1 has no label: it is missing, not a string", false},
		{`{"label":"a","passed":true,"kind":"gate"}`, "", `check 1 ("a") has kind "gate", which is not required, optional, forbidden or coverage`, false},
		{`{"label":"a","passed":true,"detail":3}`, "", `check 1 ("a") has a detail that is a number, not a string`, false},
	} {
		var w wireCheck
		if err := json.Unmarshal([]byte(c.in), &w); err != nil {
			t.Fatal(err)
		}
		got, err := checkResults("VER-001", []wireCheck{w})
		if c.err != "" {
			if err == nil || err.Error() != "verifier VER-001: "+c.err {
				t.Errorf("%s: error %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || string(got[0].Kind) != c.kind || got[0].Required != c.required {
			t.Errorf("%s: %+v %v, want kind %s required %v", c.in, got, err, c.kind, c.required)
		}
	}
}

// TestPrintable: what a host writes reaches a terminal with nothing it
// would act on.
func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"plain text, ünïcode":         "plain text, ünïcode",
		"\x1b[31mred\x1b]0;title\x07": `\x1b[31mred\x1b]0;title\x07`,
		"a\u202eb\u2066c\rd":          `a\u202eb\u2066c\x0dd`,
		"tab\tkept":                   "tab\tkept",
	} {
		if got := printable(in); got != want {
			t.Errorf("printable(%q) = %q, want %q", in, got, want)
		}
	}
}
