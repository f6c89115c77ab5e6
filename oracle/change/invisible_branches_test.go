package change

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestInvisibleDifferencesBranches: each byte-level property of a file is
// named when one side has it, with the side, and not when both or neither
// have it.
func TestInvisibleDifferencesBranches(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		want []string
	}{
		{"nothing", `{}`, `{}`, nil},
		{"BOM old", "\xef\xbb\xbf{}", `{}`, []string{"byte-order mark only in the old file"}},
		{"BOM new", `{}`, "\xef\xbb\xbf{}", []string{"byte-order mark only in the new file"}},
		{"BOM both", "\xef\xbb\xbf{}", "\xef\xbb\xbf{} ", []string{"trailing spaces only in the new file"}},
		{"CRLF old", "{\r\n}", "{\n}", []string{"CRLF line ends only in the old file"}},
		{"CRLF new", "{\n}", "{\r\n}", []string{"CRLF line ends only in the new file"}},
		{"a lone CR is no CRLF", "{\r}", "{\n}", nil},
		{"final newline old", "{}\n", "{}", []string{"final newline only in the old file"}},
		{"final newline new", "{}", "{}\n", []string{"final newline only in the new file"}},
		{"trailing space old", "{ \n}", "{\n}", []string{"trailing spaces only in the old file"}},
		{"trailing tab new", "{\n}", "{\t\n}", []string{"trailing spaces only in the new file"}},
		{"a space before CRLF", "{\r\n}", "{ \r\n}", []string{"trailing spaces only in the new file"}},
		{"a trailing space on the last line", "{}", "{} ", []string{"trailing spaces only in the new file"}},
		{"spaces inside a line are not trailing", "{ }", "{}", nil},
		{"all at once", "\xef\xbb\xbf{ \r\n}\n", "{}", []string{
			"byte-order mark only in the old file", "CRLF line ends only in the old file", "final newline only in the old file", "trailing spaces only in the old file"}},
	}
	for _, tt := range tests {
		var got []string
		for _, i := range invisibleDifferences([]byte(tt.a), []byte(tt.b)) {
			if i.Path != "" || !strings.HasPrefix(i.Detail, i.Kind+" only in the ") {
				t.Errorf("%s: %+v", tt.name, i)
			}
			got = append(got, i.Detail)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestHiddenDifferencesBranches pins what the side-by-side walk of two
// JSON texts names, and where: spacing once (and not when spacing was named
// already), key order, duplicate keys on one side (in a value only one
// side has too), escaping in a key or a string, and nothing at all for the
// same text or for values of another kind.
func TestHiddenDifferencesBranches(t *testing.T) {
	tests := []struct {
		name   string
		a, b   string
		spaced bool
		want   []string
	}{
		{"the same", `{"a":[1,"x"]}`, `{"a":[1,"x"]}`, false, nil},
		{"spacing before a value", `{"a":1}`, `{"a": 1}`, false, []string{"/a spacing: indentation or spacing changed"}},
		{"spacing named once", `{"a":1,"b":2}`, `{"a": 1,"b": 2}`, false, []string{"/a spacing: indentation or spacing changed"}},
		{"spacing named already", `{"a":1}`, `{"a": 1}`, true, nil},
		{"spacing before a closing brace", `{"a":1}`, `{"a":1 }`, false, []string{" spacing: indentation or spacing changed"}},
		{"spacing before a closing bracket", `[1]`, `[1 ]`, false, []string{" spacing: indentation or spacing changed"}},
		{"an empty object's spacing is not compared inside", `{}`, `{ }`, false, nil},
		{"an empty array's spacing is not compared inside", `[]`, `[ ]`, false, nil},
		{"spacing in front of the document", `{}`, ` {}`, false, []string{" spacing: indentation or spacing changed"}},
		{"an array that gains an element is no spacing", `[]`, `[1 ]`, false, nil},
		{"an array that loses one is no spacing", `[1 ]`, `[]`, false, nil},
		{"an object that gains a key is no spacing", `{}`, `{"a":1 }`, false, nil},
		{"an object that loses one is no spacing", `{"a":1 }`, `{}`, false, nil},
		{"key order", `{"a":1,"b":2}`, `{"b":2,"a":1}`, false, []string{" key order: key order changed (a, b → b, a)"}},
		{"nested key order", `{"x":{"a":1,"b":2}}`, `{"x":{"b":2,"a":1}}`, false, []string{"/x key order: key order changed (a, b → b, a)"}},
		{"other keys are no key order", `{"a":1,"b":2}`, `{"b":2,"c":1}`, false, nil},
		{"a duplicate in the old file", `{"a":1,"a":1}`, `{"a":1}`, false, []string{` duplicate key: duplicate key "a" in the top-level object of the old file (JSON keeps its last value)`}},
		{"a duplicate in the new file, nested", `{"x":{"a":1}}`, `{"x":{"a":0,"a":1}}`, false, []string{`/x duplicate key: duplicate key "a" in /x of the new file (JSON keeps its last value)`}},
		{"the same duplicate on both sides", `{"a":1,"a":1}`, `{"a":0,"a":1}`, false, nil},
		{"a duplicate explains the spacing", `{"a":1}`, `{"a":1, "a":1}`, false, []string{` duplicate key: duplicate key "a" in the top-level object of the new file (JSON keeps its last value)`}},
		{"a duplicate inside a key only the old side has", `{"o":{"k":1,"k":2},"p":1}`, `{"p":1}`, false, []string{`/o duplicate key: duplicate key "k" in /o of the old file (JSON keeps its last value)`}},
		{"a duplicate inside a key only the new side has", `{}`, `{"o":[{"k":1,"k":2}]}`, false, []string{`/o/0 duplicate key: duplicate key "k" in /o/0 of the new file (JSON keeps its last value)`}},
		{"a duplicate inside an element only the old side has", `[1,{"k":1,"k":1}]`, `[1]`, false, []string{`/1 duplicate key: duplicate key "k" in /1 of the old file (JSON keeps its last value)`}},
		{"a duplicate inside an element only the new side has", `[1]`, `[1,{"a":{"k":1,"k":1}}]`, false, []string{`/1/a duplicate key: duplicate key "k" in /1/a of the new file (JSON keeps its last value)`}},
		{"escaping of a key", `{"a":1}`, `{"\u0061":1}`, false, []string{`/a escaping: key: escaping of "a" changed (a → \u0061)`}},
		{"escaping of a string", `["é"]`, `["\u00e9"]`, false, []string{`/0 escaping: escaping of "é" changed (é → \u00e9)`}},
		{"escaping of a slash", `{"p":"a/b"}`, `{"p":"a\/b"}`, false, []string{`/p escaping: escaping of "/" changed (/ → \/)`}},
		{"escaping of a pair of surrogates", `["😀"]`, `["\ud83d\ude00"]`, false, []string{`/0 escaping: escaping of "😀" changed (😀 → \ud83d\ude00)`}},
		{"a key with ~ and /", `{"a/b~":{"x":1,"y":2}}`, `{"a/b~":{"y":2,"x":1}}`, false, []string{"/a~1b~0 key order: key order changed (x, y → y, x)"}},
		{"another kind", `{"a":[1]}`, `{"a":{"b":1}}`, false, nil},
		{"not JSON", `{"a":`, `{"a":1}`, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, i := range hiddenDifferences([]byte(tt.a), []byte(tt.b), tt.spaced) {
				got = append(got, i.Path+" "+i.Kind+": "+i.Detail)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestEscapingChange(t *testing.T) {
	for _, tt := range []struct {
		a, b, want string
		ok         bool
	}{
		{`"ab"`, `"a\u0062"`, `escaping of "b" changed (b → \u0062)`, true},
		{`"\n"`, `"\u000a"`, `escaping of "\n" changed (\n → \u000a)`, true},
		{`"\u000A"`, `"\u000a"`, `escaping of "\n" changed (\u000A → \u000a)`, true},
		{`"\uD83D\uDE00"`, `"\ud83d\ude00"`, `escaping of "😀" changed (\uD83D\uDE00 → \ud83d\ude00)`, true},
		{`"ab"`, `"ab"`, "", false},
		{`"ab"`, `"ac"`, "", false},
		{`"a"`, `"ab"`, "", false},
		{`"`, `""`, "", false},
	} {
		got, ok := escapingChange([]byte(tt.a), []byte(tt.b))
		if got != tt.want || ok != tt.ok {
			t.Errorf("escapingChange(%s, %s) = %q, %v; want %q, %v", tt.a, tt.b, got, ok, tt.want, tt.ok)
		}
	}
}

func TestStringUnits(t *testing.T) {
	for _, tt := range []struct {
		tok  string
		want []strUnit
	}{
		{`""`, nil},
		{`"`, nil},
		{`"aé"`, []strUnit{{"a", "a"}, {"é", "é"}}},
		{`"\n\/"`, []strUnit{{`\n`, "\n"}, {`\/`, "/"}}},
		{`"\u0041"`, []strUnit{{`\u0041`, "A"}}},
		{`"\ud83d\ude00"`, []strUnit{{`\ud83d\ude00`, "😀"}}},
		{`"\udc00\u0041"`, []strUnit{{`\udc00`, "\ufffd"}, {`\u0041`, "A"}}},
		{`"\ud83dx"`, []strUnit{{`\ud83d`, "\ufffd"}, {"x", "x"}}},
		{`"\u004"`, []strUnit{{`\u`, `\u`}, {"0", "0"}, {"0", "0"}, {"4", "4"}}},
		{`"\"`, []strUnit{{`\`, `\`}}},
	} {
		if got := stringUnits([]byte(tt.tok)); !cmp.Equal(got, tt.want, cmp.AllowUnexported(strUnit{})) {
			t.Errorf("stringUnits(%s) = %q, want %q", tt.tok, got, tt.want)
		}
	}
	for _, tt := range []struct {
		hex  string
		want bool
	}{{"d800", true}, {"DBFF", true}, {"d83d", true}, {"dc00", false}, {"d7ff", false}, {"e000", false}, {"d80", false}} {
		if got := isSurrogate(tt.hex); got != tt.want {
			t.Errorf("isSurrogate(%q) = %v", tt.hex, got)
		}
	}
}

func TestKeySets(t *testing.T) {
	for _, tt := range []struct {
		a, b     []string
		same, eq bool
	}{
		{nil, nil, true, true},
		{[]string{"a", "b"}, []string{"a", "b"}, true, true},
		{[]string{"a", "b"}, []string{"b", "a"}, true, false},
		{[]string{"a", "b"}, []string{"a", "c"}, false, false},
		{[]string{"a"}, []string{"a", "b"}, false, false},
		{[]string{"a", "b"}, []string{"a"}, false, false},
	} {
		if got := sameSet(tt.a, tt.b); got != tt.same {
			t.Errorf("sameSet(%q, %q) = %v", tt.a, tt.b, got)
		}
		if got := equalStrings(tt.a, tt.b); got != tt.eq {
			t.Errorf("equalStrings(%q, %q) = %v", tt.a, tt.b, got)
		}
	}
	if got := escapePointer("a/b~c"); got != "a~1b~0c" {
		t.Errorf("escapePointer = %q", got)
	}
	if got := (Invisible{Path: "/a", Detail: "d"}).String(); got != "/a: d" {
		t.Errorf("String = %q", got)
	}
	if got := (Invisible{Detail: "d"}).String(); got != "d" {
		t.Errorf("String = %q", got)
	}
}
