package canon

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The reused encoder writes what Compact writes, value after value, and
// leaves dst as it was on error.
func TestEncoderMatchesCompact(t *testing.T) {
	values := []any{
		"plain", "a<b>&c", "line\u2028sep\u2029", `back\u2028slash`, 42, 1.5, nil, true,
		json.RawMessage(`{ "b" : 1, "a" : [1, 2] }`), map[string]any{"z": 1, "a": []int{1}},
		struct {
			N string `json:"n"`
		}{"x"},
	}
	enc := NewEncoder()
	var got, want []byte
	for _, v := range values {
		c, err := Compact(v)
		if err != nil {
			t.Fatal(err)
		}
		want = append(append(want, c...), ' ')
		if got, err = enc.AppendCompact(got, v); err != nil {
			t.Fatal(err)
		}
		got = append(got, ' ')
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("encoder (-Compact +encoder):\n%s", diff)
	}
	before := string(got)
	if got, err := enc.AppendCompact(got, math.NaN()); err == nil || string(got) != before {
		t.Errorf("NaN: err %v, dst changed to %q", err, got)
	}
}
