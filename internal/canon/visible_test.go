package canon

import "testing"

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
