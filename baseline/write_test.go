package baseline

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func entryOf(i int, v string) Entry {
	return Entry{Result: []byte(fmt.Sprintf("{\"n\": %d, \"v\": %q}\n", i, v)), StateDiff: []byte("{}\n")}
}

// WriteAll writes what Write would, case by case in order, leaves no
// temporary file, and keeps what already holds the same bytes.
func TestWriteAll(t *testing.T) {
	s := &Store{Root: t.TempDir()}
	var cases []Keyed
	for i := range 40 {
		cases = append(cases, Keyed{Key{[]string{"crm", "calendar"}[i%2], "solver", fmt.Sprintf("TASK-%03d", i)}, entryOf(i, "a")})
	}
	check := func(want []WriteResult) {
		t.Helper()
		got, err := s.WriteAll(cases, 4)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("results (-want +got):\n%s", diff)
		}
		for _, c := range cases {
			e, err := s.Read(c.Key)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.Entry, e); diff != "" {
				t.Errorf("%s (-written +read):\n%s", c.Key, diff)
			}
		}
	}
	all := func(r WriteResult) []WriteResult {
		out := make([]WriteResult, len(cases))
		for i := range out {
			out[i] = r
		}
		return out
	}
	check(all(Written))
	check(all(Kept))
	cases[7].Entry = entryOf(7, "b")
	want := all(Kept)
	want[7] = Written
	check(want)
	err := filepath.WalkDir(s.Root, func(path string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".tmp-") {
			t.Errorf("temporary file left: %s", path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// The first failing case in order is the error WriteAll returns.
func TestWriteAllReportsTheFirstError(t *testing.T) {
	s := &Store{Root: t.TempDir()}
	cases := []Keyed{
		{Key{"crm", "solver", "TASK-001"}, entryOf(1, "a")},
		{Key{"crm", "../x", "TASK-002"}, entryOf(2, "a")},
		{Key{"crm", "solver", "bad name"}, entryOf(3, "a")},
	}
	res, err := s.WriteAll(cases, 3)
	if err == nil || !strings.Contains(err.Error(), "../x") {
		t.Fatalf("err = %v, want the second case's", err)
	}
	if res[0] != Written {
		t.Errorf("the good case was not written: %v", res)
	}
}
