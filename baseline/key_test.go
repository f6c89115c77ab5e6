package baseline

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestKeyCompareOrdersByEnvAgentTask(t *testing.T) {
	keys := []Key{
		{"b", "a", "a"}, {"a", "b", "a"}, {"a", "a", "b"}, {"a", "a", "a"}, {"a", "a", "a"},
	}
	slices.SortFunc(keys, Key.Compare)
	want := []Key{{"a", "a", "a"}, {"a", "a", "a"}, {"a", "a", "b"}, {"a", "b", "a"}, {"b", "a", "a"}}
	if diff := cmp.Diff(want, keys); diff != "" {
		t.Errorf("sorted keys (-want +got):\n%s", diff)
	}
	if got := (Key{"a", "a", "a"}).Compare(Key{"a", "a", "a"}); got != 0 {
		t.Errorf("Compare of equal keys = %d, want 0", got)
	}
}
