package redact

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/agent-oracle/oracle/internal/canon"
	"github.com/agent-oracle/oracle/internal/safeio"
	"github.com/google/go-cmp/cmp"
)

// jnode is a JSON value as the fuzz target's own reader sees it, apart
// from the package's: members in their order, numbers as written.
type jnode struct {
	kind string // "string", "number", "boolean", "null", "object", "array"
	text string // a string's text, a number's or literal's JSON
	keys []string
	kids []*jnode
}

func readTree(data []byte) (*jnode, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := readNode(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("more than one value")
	}
	return n, nil
}

func readNode(dec *json.Decoder) (*jnode, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok := tok.(type) {
	case json.Delim:
		n := &jnode{kind: "array"}
		if tok == '{' {
			n.kind = "object"
		}
		for dec.More() {
			if n.kind == "object" {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				n.keys = append(n.keys, k.(string))
			}
			kid, err := readNode(dec)
			if err != nil {
				return nil, err
			}
			n.kids = append(n.kids, kid)
		}
		_, err := dec.Token()
		return n, err
	case string:
		return &jnode{kind: "string", text: tok}, nil
	case json.Number:
		return &jnode{kind: "number", text: string(tok)}, nil
	case bool:
		return &jnode{kind: "boolean", text: strconv.FormatBool(tok)}, nil
	}
	return &jnode{kind: "null", text: "null"}, nil
}

// located is a value of a tree with where it is.
type located struct {
	keys []string
	node *jnode
	// slot is where the node hangs, so that it can be replaced
	slot **jnode
}

func walkTree(slot **jnode, keys []string, out *[]located) {
	n := *slot
	*out = append(*out, located{keys: append([]string(nil), keys...), node: n, slot: slot})
	for i := range n.kids {
		k := strconv.Itoa(i)
		if n.kind == "object" {
			k = n.keys[i]
		}
		walkTree(&n.kids[i], append(keys, k), out)
	}
}

func pointerText(keys []string) string {
	var b strings.Builder
	for _, k := range keys {
		b.WriteString("/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(k))
	}
	return b.String()
}

// globMatch is the test's own reading of a rule's path: * one key, ** any
// number, ~0 ~1 ~2 escapes.
func globMatch(pat, keys []string) bool {
	if len(pat) == 0 {
		return len(keys) == 0
	}
	switch pat[0] {
	case "**":
		return globMatch(pat[1:], keys) || len(keys) > 0 && globMatch(pat, keys[1:])
	case "*":
		return len(keys) > 0 && globMatch(pat[1:], keys[1:])
	}
	lit := strings.NewReplacer("~0", "~", "~1", "/", "~2", "*").Replace(pat[0])
	return len(keys) > 0 && keys[0] == lit && globMatch(pat[1:], keys[1:])
}

func splitPath(p string) []string {
	if p == "" {
		return nil
	}
	return strings.Split(p[1:], "/")
}

// above reports whether the keys a lead to a value that holds the one b
// leads to.
func above(a, b []string) bool { return len(a) < len(b) && slices.Equal(a, b[:len(a)]) }

// FuzzApply holds Apply to its rules, for one rule from the fuzzer (a
// pattern one when pattern is set) and optionally a second one without a
// pattern: the output is valid JSON in canon's layout, the same input
// gives the same bytes, applying again changes nothing, the values that
// changed are exactly the ones the rules select (checked with the test's
// own reader and path matcher), each as the rule says, and everything
// else is as it was.
func FuzzApply(f *testing.F) {
	seeds := []struct{ data, path, pattern, replace, path2 string }{
		{`[{"tool":"t","output":{"id":"a1","createdAt":"2026-04-13T09:00:00Z","n":1.10}}]`, "/*/output/createdAt", "", "", ""},
		{`{"agentOutput":"at 2026-04-13T09:00:00Z","checks":[{"detail":"x 12"}]}`, "/agentOutput", `[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z`, "[time]", "/checks/*/detail"},
		{`{"a":{"b":[1,{"c":"d"}]},"e":1e5}`, "/**", "d", "$1", ""},
		{`{"a":{"b":[1,{"c":"d"}]},"e":1e5}`, "/**/c", "", "", "/a"},
		{`{"~":{"/":{"*":"v"}}}`, "/~0/~1/~2", "v", "", ""},
		{`{"a":"[redacted: number]","b":"x"}`, "/*", "x", "[redacted: string]", ""},
		{`{"a":1,"a":2,"b":"ab"}`, "/a", "", "", "/b"},
		{`"abb"`, "", "ab", "a", ""},
		{`{"s":"1 \u2028 \"q\" é \ud800 2"}`, "/s", "[0-9]", "<&>", ""},
		{`[[[[["deep"]]]]]`, "/**/0", "", "", ""},
	}
	for _, s := range seeds {
		f.Add([]byte(s.data), s.path, s.pattern, s.replace, s.path2)
	}
	f.Fuzz(func(t *testing.T, data []byte, path, pattern, replace, path2 string) {
		if len(splitPath(path)) > 8 || len(splitPath(path2)) > 8 {
			return // the test's matcher is exponential in **
		}
		rules := []Rule{Whole(Result, path)}
		if pattern != "" {
			rules[0] = Match(Result, path, pattern, replace)
		}
		if path2 != "" {
			rules = append(rules, Whole(Result, path2))
		}
		r, err := New(rules...)
		if err != nil {
			return
		}
		valid := json.Valid(data) && safeio.CheckLimits(data) == nil
		res, err := r.Apply(Result, data)
		if err != nil {
			if valid && !strings.Contains(err.Error(), "change it again") {
				t.Fatalf("valid JSON refused: %v", err)
			}
			return
		}
		if !valid {
			t.Fatalf("accepted what is not JSON: %q", data)
		}
		// valid JSON, in canon's layout when anything changed
		if !json.Valid(res.Data) {
			t.Fatalf("output is not JSON: %q", res.Data)
		}
		if len(res.Places) == 0 {
			if !bytes.Equal(res.Data, data) {
				t.Fatalf("nothing redacted, yet the bytes changed")
			}
		} else if relaid, err := canon.Marshal(json.RawMessage(res.Data)); err != nil || !bytes.Equal(relaid, res.Data) {
			t.Fatalf("not in canon's layout:\n%s", res.Data)
		}
		// deterministic
		again, err := r.Apply(Result, data)
		if err != nil || !bytes.Equal(again.Data, res.Data) || !cmp.Equal(again.Places, res.Places) {
			t.Fatalf("a second Apply differs: %v", err)
		}
		// idempotent
		twice, err := r.Apply(Result, res.Data)
		if err != nil || !bytes.Equal(twice.Data, res.Data) || len(twice.Places) != 0 {
			t.Fatalf("Apply of the redacted artifact changes it: %v\n%s\n%s", err, res.Data, twice.Data)
		}
		// the places, one by one, against the test's own reading
		tree, err := readTree(data)
		if err != nil {
			t.Fatal(err)
		}
		out, err := readTree(res.Data)
		if err != nil {
			t.Fatal(err)
		}
		var all []located
		walkTree(&tree, nil, &all)
		var re *regexp.Regexp
		if pattern != "" {
			re = regexp.MustCompile(pattern)
		}
		wholeSel := func(keys []string) bool {
			for _, rule := range rules {
				if rule.Pattern == "" && globMatch(splitPath(rule.Path), keys) {
					return true
				}
			}
			return false
		}
		// what the rules should redact, in the artifact's order
		type expect struct {
			pointer string
			value   *jnode
			at      located
		}
		var want []expect
		var covered [][]string // values redacted whole
		for _, l := range all {
			under := false
			for _, c := range covered {
				if above(c, l.keys) {
					under = true
				}
			}
			if under {
				continue
			}
			marker := l.node.kind == "string" && isMarkerText(l.node.text)
			switch {
			case marker:
			case wholeSel(l.keys):
				covered = append(covered, l.keys)
				want = append(want, expect{pointerText(l.keys), &jnode{kind: "string", text: "[redacted: " + l.node.kind + "]"}, l})
			case re != nil && l.node.kind == "string" && globMatch(splitPath(path), l.keys):
				if s := re.ReplaceAllLiteralString(l.node.text, replace); s != l.node.text {
					want = append(want, expect{pointerText(l.keys), &jnode{kind: "string", text: s}, l})
				}
			}
		}
		if len(want) != len(res.Places) {
			t.Fatalf("%d places, want %d: %v", len(res.Places), len(want), placesOf(res.Places))
		}
		for i, p := range res.Places {
			w := want[i]
			if p.Pointer != w.pointer {
				t.Fatalf("place %d at %s, want %s", i, p.Pointer, w.pointer)
			}
			raw, err := readTree(p.Raw)
			if err != nil || !cmp.Equal(raw, w.at.node, cmp.AllowUnexported(jnode{})) {
				t.Fatalf("place %s: raw %s is not the value there", p.Pointer, p.Raw)
			}
			value, err := readTree(p.Value)
			if err != nil || !cmp.Equal(value, w.value, cmp.AllowUnexported(jnode{})) {
				t.Fatalf("place %s: value %s, want %+v", p.Pointer, p.Value, w.value)
			}
			*w.at.slot = w.value
		}
		// and nothing else changed
		if diff := cmp.Diff(tree, out, cmp.AllowUnexported(jnode{})); diff != "" {
			t.Fatalf("outside the places (-input with the places +output):\n%s", diff)
		}
	})
}

// FuzzParseRules: nothing panics, every error is one line, and a list
// that parses writes itself back as a list that parses to the same rules.
func FuzzParseRules(f *testing.F) {
	for _, s := range []string{
		`[{"artifact":"calls","path":"/*/output/createdAt"}]`,
		`[{"artifact":"result","path":"/agentOutput","pattern":"[0-9]+","replace":"[n]"}]`,
		`[{"artifact":"result","path":"/a~2","pattern":"(","replace":"$1"}]`,
		`[{"artifact":"state-diff","path":"/**/id"},{"artifact":"state-diff","path":"/**/id"}]`,
		`[]`, `null`, `[1]`, `[{"Path":"/x"}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ParseRules(data)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error spans lines: %q", err)
			}
			return
		}
		out, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseRules(out)
		if err != nil {
			t.Fatalf("%s: %v", out, err)
		}
		if !cmp.Equal(r.List(), back.List()) {
			t.Fatalf("round trip: %v, then %v", r.List(), back.List())
		}
	})
}

// FuzzCompare: two versions of an artifact compare as their redacted
// bytes do, a difference is listed whenever the redacted values differ,
// a version compared with itself hides nothing, and a baseline recorded
// from one version compares with it as the same.
func FuzzCompare(f *testing.F) {
	f.Add([]byte(`[{"output":{"id":"a","n":1}}]`), []byte(`[{"output":{"id":"b","n":1}}]`), "/*/output/id")
	f.Add([]byte(`{"a":1,"a":2}`), []byte(`{"a":2,"a":1}`), "/a")
	f.Add([]byte(`{"x":[1,2,3]}`), []byte(`{"x":[1]}`), "/x/**")
	f.Add([]byte(`{"n":1,"m":2}`), []byte(`{"m":2,"n":1}`), "/z")
	f.Fuzz(func(t *testing.T, a, b []byte, path string) {
		if len(splitPath(path)) > 8 {
			return
		}
		r, err := New(Whole(Result, path))
		if err != nil {
			return
		}
		ra, errA := r.Apply(Result, a)
		rb, errB := r.Apply(Result, b)
		c, err := r.Compare(Result, a, b)
		if (errA != nil || errB != nil) != (err != nil) {
			t.Fatalf("Compare error %v, Apply errors %v, %v", err, errA, errB)
		}
		if err != nil {
			return
		}
		if c.Same != bytes.Equal(ra.Data, rb.Data) {
			t.Fatalf("Same %v, yet the redacted bytes compare %v", c.Same, !c.Same)
		}
		ta, _ := readTree(ra.Data)
		tb, _ := readTree(rb.Data)
		if equal := cmp.Equal(ta, tb, cmp.AllowUnexported(jnode{})); equal != (len(c.Differences) == 0) {
			t.Fatalf("%d differences, yet the redacted trees are equal: %v", len(c.Differences), equal)
		}
		if self, err := r.Compare(Result, a, a); err != nil || !self.Same || len(self.Hidden) != 0 || len(self.Differences) != 0 {
			t.Fatalf("a version compared with itself: %+v, %v", self, err)
		}
		if base, err := r.CompareBaseline(Result, ra.Data, a); err != nil || !base.Same || len(base.Differences) != 0 {
			t.Fatalf("a baseline recorded from a: %+v, %v", base, err)
		}
	})
}
