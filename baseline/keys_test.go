package baseline

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Keys walks the store in key order, whatever the order of the file names
// in a folder (T-1-a.result.json sorts before T-1.result.json, its task
// after T-1), yields each task once however many of its files there are,
// and ignores files above the agents' folders and folders below them;
// List is the same keys.
func TestKeysInKeyOrder(t *testing.T) {
	s := &Store{Root: filepath.Join(t.TempDir(), "baselines")}
	var want []Key
	for _, k := range []Key{{"b", "solver", "T-1"}, {"b", "solver", "T-1-a"}, {"b", "solver", "T-10"}, {"a", "z", "T-2"}, {"a", "b", "T-9"}} {
		if _, err := s.Write(k, Entry{Result: []byte("{}\n"), StateDiff: []byte("{}\n")}); err != nil {
			t.Fatal(err)
		}
		want = append(want, k)
	}
	slices.SortFunc(want, Key.Compare)
	for _, p := range []string{"README", "a/notes.txt", "a/b/T-9.unknown.json"} {
		if err := os.WriteFile(filepath.Join(s.Root, p), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(s.Root, "a", "b", "deeper", "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	var got []Key
	for k, err := range s.Keys() {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, k)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Keys (-want +got):\n%s", diff)
	}
	list, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, list); diff != "" {
		t.Errorf("List (-want +got):\n%s", diff)
	}
	for range s.Keys() {
		break // a walk stopped early ends cleanly
	}
}
