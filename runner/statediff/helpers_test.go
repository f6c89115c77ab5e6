package statediff

import (
	"bytes"
	"encoding/json"
)

// compactToIndented re-writes compact JSON in the artifacts' indented form,
// keeping key order and number text.
func compactToIndented(s string) (string, error) {
	var buf bytes.Buffer
	if err := json.Indent(&buf, []byte(s), "", "  "); err != nil {
		return "", err
	}
	return buf.String() + "\n", nil
}
