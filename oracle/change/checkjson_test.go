package change

import (
	"strings"
	"testing"

	"github.com/agent-oracle/oracle/internal/canon"
)

// checkJSON skips decoding valid data: it must accept exactly what
// canon.Decode accepts, and give its error for the rest.
func FuzzCheckJSON(f *testing.F) {
	for _, s := range []string{`{}`, ` [1, 2] `, `{"a":1}{"b":2}`, `1 2`, ``, ` `, `{"a":}`, `"\xff"`, `[1]]`,
		`{"a":1,"a":2}`, "\"\\ud800\"", `1e999`, `-0`, `tru`, `null` + "\n", strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
		strings.Repeat("[", 9999) + strings.Repeat("]", 9999)} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, want := canon.Decode(data)
		got := checkJSON(data)
		if (got == nil) != (want == nil) || got != nil && got.Error() != want.Error() {
			t.Errorf("checkJSON(%q) = %v, canon.Decode says %v", data, got, want)
		}
	})
}
