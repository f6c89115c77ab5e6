package baseline

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-oracle/oracle/internal/artifact"
	"github.com/google/go-cmp/cmp"
)

func entryOf(i int, v string) Entry {
	return Entry{Result: []byte(fmt.Sprintf("{\"n\": %d, \"v\": %q}\n", i, v)), StateDiff: []byte("{}\n")}
}

// A Batch writes what Write would, case by case in order, leaves no
// temporary file, and keeps what already holds the same bytes.
func TestBatchWritesWhatWriteWould(t *testing.T) {
	s := &Store{Root: t.TempDir()}
	var cases []keyed
	for i := range 40 {
		cases = append(cases, keyed{Key{[]string{"crm", "calendar"}[i%2], "solver", fmt.Sprintf("TASK-%03d", i)}, entryOf(i, "a")})
	}
	check := func(want []WriteResult) {
		t.Helper()
		got, failed, err := writeAll(s, cases, 4)
		if err != nil || failed != -1 {
			t.Fatalf("failed %d: %v", failed, err)
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
	check(all(Unchanged))
	cases[7].Entry = entryOf(7, "b")
	want := all(Unchanged)
	want[7] = Written
	check(want)
	noTemporaryFiles(t, s.Root)
}

func noTemporaryFiles(t *testing.T, root string) {
	t.Helper()
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".tmp-") {
			t.Errorf("temporary file left: %s", path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A case that cannot be written stops a Batch there, as Write case after
// case would: the cases before it are in place, the ones after untouched,
// and no temporary file is left.
func TestBatchStopsAtTheFirstFailure(t *testing.T) {
	s := &Store{Root: t.TempDir()}
	var cases []keyed
	for i := range 20 {
		cases = append(cases, keyed{Key{"crm", "solver", fmt.Sprintf("TASK-%03d", i)}, entryOf(i, "a")})
	}
	// a folder stands where case 5's result.json goes
	if err := os.MkdirAll(filepath.Join(s.Path(cases[5].Key, "result.json"), "in-the-way"), 0o755); err != nil {
		t.Fatal(err)
	}
	res, failed, err := writeAll(s, cases, 4)
	if failed != 5 || err == nil || !strings.Contains(err.Error(), "TASK-005") {
		t.Fatalf("failed %d, err %v; want case 5's error", failed, err)
	}
	for i, c := range cases {
		_, rerr := os.Stat(s.Path(c.Key, "result.json"))
		switch {
		case i < 5 && (res[i] != Written || rerr != nil):
			t.Errorf("case %d before the failure: %v, %v", i, res[i], rerr)
		case i > 5 && (res[i] != Unchanged || rerr == nil):
			t.Errorf("case %d after the failure was written", i)
		}
	}
	noTemporaryFiles(t, s.Root)
}

// The first failing case in order is the error Commit returns.
func TestBatchReportsTheFirstError(t *testing.T) {
	s := &Store{Root: t.TempDir()}
	cases := []keyed{
		{Key{"crm", "solver", "TASK-001"}, entryOf(1, "a")},
		{Key{"crm", "../x", "TASK-002"}, entryOf(2, "a")},
		{Key{"crm", "solver", "bad name"}, entryOf(3, "a")},
	}
	res, failed, err := writeAll(s, cases, 3)
	if failed != 1 || err == nil || !strings.Contains(err.Error(), "../x") {
		t.Fatalf("failed %d, err = %v, want the second case's", failed, err)
	}
	if res[0] != Written {
		t.Errorf("the good case was not written: %v", res)
	}
}

// A case whose write fails is a *WriteError naming it, whose Reason is the
// error without the case; one that fails after some of its files were
// renamed into place says so.
func TestWriteErrorSaysWhatWasReplaced(t *testing.T) {
	for _, tt := range []struct {
		blocked  string // the file a folder stands in the way of
		replaced bool
	}{{artifact.Result, false}, {artifact.StateDiff, true}} {
		t.Run(tt.blocked, func(t *testing.T) {
			s := &Store{Root: t.TempDir()}
			k := Key{"crm", "solver", "TASK-001"}
			if err := os.MkdirAll(filepath.Join(s.Path(k, tt.blocked), "in-the-way"), 0o755); err != nil {
				t.Fatal(err)
			}
			res, failed, err := writeAll(s, []keyed{{k, entryOf(1, "a")}}, 1)
			we, ok := errors.AsType[*WriteError](err)
			if failed != 0 || !ok {
				t.Fatalf("failed %d, err %v (%T); want case 0's *WriteError", failed, err, err)
			}
			if we.Key != k || we.Replaced != tt.replaced || (res[0] == Written) != tt.replaced {
				t.Errorf("key %s, replaced %v, result %v; want %s, %v", we.Key, we.Replaced, res[0], k, tt.replaced)
			}
			reason := we.Reason()
			if strings.Contains(reason, "record ") || strings.HasSuffix(reason, "(some of its files were replaced before the failure)") != tt.replaced {
				t.Errorf("reason %q", reason)
			}
			if err.Error() != "record "+k.String()+": "+reason {
				t.Errorf("error %q does not name the case before its reason %q", err, reason)
			}
		})
	}
}
