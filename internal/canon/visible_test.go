package canon

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestVisible: what a terminal would act on, or shows as nothing, is
// written as an escape; everything else is left as it is.
func TestVisible(t *testing.T) {
	for in, want := range map[string]string{
		`"plain"`:                 `"plain"`,
		"\"a\x1b[31mb\"":          `"a\u001b[31mb"`,
		"\"\u202eevil\"":          `"\u202eevil"`,
		"\"c1 \u009b\"":           `"c1 \u009b"`,
		"/a\u2028b":               `/a\u2028b`,
		"\"tag \U000E0041\"":      `"tag \udb40\udc41"`,
		"\"bad \xff byte\"":       `"bad \ufffd byte"`,
		"\"accents: é, 日本\"":      "\"accents: é, 日本\"",
		"\"del \x7f\"":            `"del \u007f"`,
		"\"zero\u200bwidth\"":     `"zero\u200bwidth"`,
		"\"bom \ufeff\"":          `"bom \ufeff"`,
		"\"replacement \ufffd\"":  `"replacement \ufffd"`,
		"/keys/\u0007bell/0/name": `/keys/\u0007bell/0/name`,
	} {
		if got := Visible(in); got != want {
			t.Errorf("Visible(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestVisibleJSON: the JSON text keeps its value and its line ends, and
// holds none of the characters a terminal acts on or shows as nothing.
func TestVisibleJSON(t *testing.T) {
	for _, v := range []any{
		map[string]any{"answer": "clear \u009b2J, flip \u202eexe, tag \U000E0041, sep \u2028, zero\u200bwidth, ok é 日本 →"},
		[]any{"\u0085next line", map[string]any{"\u061c key": 1.5}},
		"plain",
	} {
		b, err := Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got := VisibleJSON(b)
		checkVisibleJSON(t, b, got)
	}
}

// FuzzVisibleJSON: any string marshalled and made visible decodes to the
// same string and holds no hidden character.
func FuzzVisibleJSON(f *testing.F) {
	for _, s := range []string{"a\u009bb", "\u202e", "\U000E0041", "\u2028", "é", "\xff", "line\nend"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := Marshal(map[string]any{"s": s, "list": []any{s}})
		if err != nil {
			t.Skip(err)
		}
		checkVisibleJSON(t, b, VisibleJSON(b))
	})
}

func checkVisibleJSON(t *testing.T, in, got []byte) {
	t.Helper()
	var want, have any
	if err := json.Unmarshal(in, &want); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(got, &have); err != nil {
		t.Fatalf("VisibleJSON(%q) = %q: %v", in, got, err)
	}
	if !reflect.DeepEqual(want, have) {
		t.Errorf("VisibleJSON(%q) = %q, another value", in, got)
	}
	if strings.Count(string(got), "\n") != strings.Count(string(in), "\n") {
		t.Errorf("VisibleJSON(%q) = %q: its line ends changed", in, got)
	}
	if i := strings.IndexFunc(string(got), func(r rune) bool { return r != '\n' && hidden(r) }); i >= 0 {
		t.Errorf("VisibleJSON(%q) = %q: a hidden character at %d", in, got, i)
	}
}
