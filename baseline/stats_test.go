package baseline

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var (
	statsKey   = Key{"crm", "model", "TASK-004"}
	statsEntry = Entry{Stats: []byte("{\"kind\": \"distribution\"}\n")}
	bytesEntry = Entry{Result: []byte("{\"passed\": true}\n"), StateDiff: []byte("{}\n"), Calls: []byte("[]\n")}
)

// files lists the files of k in s, sorted.
func files(t *testing.T, s *Store, k Key) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(s.Root, k.Env, k.Agent))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// A case is one kind or the other: writing either kind, by Write, by a
// Batch or by Accept, removes the other kind's files, and says Written.
func TestWritingOneKindRemovesTheOther(t *testing.T) {
	byteFiles := []string{"TASK-004.calls.json", "TASK-004.result.json", "TASK-004.state-diff.json"}
	statsFiles := []string{"TASK-004.stats.json"}
	writers := map[string]func(s *Store, e Entry) (WriteResult, error){
		"Write": func(s *Store, e Entry) (WriteResult, error) { return s.Write(statsKey, e) },
		"Batch": func(s *Store, e Entry) (WriteResult, error) {
			res, _, err := writeAll(s, []keyed{{statsKey, e}}, 1)
			return res[0], err
		},
	}
	for name, write := range writers {
		t.Run(name, func(t *testing.T) {
			s := &Store{Root: t.TempDir()}
			steps := []struct {
				e    Entry
				want []string
				kind Form
				res  WriteResult
			}{
				{bytesEntry, byteFiles, Bytes, Written},
				{bytesEntry, byteFiles, Bytes, Unchanged},
				{statsEntry, statsFiles, Distribution, Written},
				{statsEntry, statsFiles, Distribution, Unchanged},
				{bytesEntry, byteFiles, Bytes, Written},
			}
			for i, st := range steps {
				res, err := write(s, st.e)
				if err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
				if res != st.res {
					t.Errorf("step %d: result %v, want %v", i, res, st.res)
				}
				if diff := cmp.Diff(st.want, files(t, s, statsKey)); diff != "" {
					t.Errorf("step %d: files (-want +got):\n%s", i, diff)
				}
				if kind, err := s.KindOf(statsKey); err != nil || kind != st.kind {
					t.Errorf("step %d: KindOf = %v, %v; want %v", i, kind, err, st.kind)
				}
			}
		})
	}
}

func TestAcceptOfByteFilesRemovesTheDistribution(t *testing.T) {
	dir := t.TempDir()
	s := Open(dir)
	if _, err := s.Write(statsKey, statsEntry); err != nil {
		t.Fatal(err)
	}
	p := OpenPending(dir)
	if err := p.Write(statsKey, bytesEntry); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Accept(p, []Key{statsKey}); err != nil {
		t.Fatal(err)
	}
	if kind, err := s.KindOf(statsKey); err != nil || kind != Bytes {
		t.Errorf("KindOf after accept = %v, %v; want Bytes", kind, err)
	}
}

func TestReadStatsAndKinds(t *testing.T) {
	s := &Store{Root: t.TempDir()}
	if _, err := s.ReadStats(statsKey); !errors.Is(err, ErrNotFound) {
		t.Errorf("ReadStats of nothing: %v, want ErrNotFound", err)
	}
	if kind, err := s.KindOf(statsKey); err != nil || kind != NoBaseline {
		t.Errorf("KindOf of nothing = %v, %v", kind, err)
	}
	if _, err := s.Write(statsKey, statsEntry); err != nil {
		t.Fatal(err)
	}
	for _, read := range []func(Key) ([]byte, error){s.ReadStats, s.Reader().ReadStats} {
		got, err := read(statsKey)
		if err != nil || string(got) != string(statsEntry.Stats) {
			t.Errorf("ReadStats = %q, %v", got, err)
		}
	}
	// a byte-for-byte file beside it (written by hand): both kinds
	if err := os.WriteFile(s.Path(statsKey, "result.json"), bytesEntry.Result, 0o644); err != nil {
		t.Fatal(err)
	}
	if kind, err := s.Reader().KindOf(statsKey); err != nil || kind != BothKinds {
		t.Errorf("KindOf = %v, %v; want BothKinds", kind, err)
	}
	// the listing knows the distribution's file, and Remove removes it
	keys, err := s.List()
	if err != nil || !cmp.Equal(keys, []Key{statsKey}) {
		t.Errorf("List = %v, %v", keys, err)
	}
	if err := s.Remove(statsKey); err != nil {
		t.Fatal(err)
	}
	if got := files(t, s, statsKey); len(got) != 0 {
		t.Errorf("files after Remove: %v", got)
	}
	// what is not a regular file is refused
	if err := os.MkdirAll(s.Path(statsKey, StatsFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := s.KindOf(statsKey); err == nil {
		t.Error("KindOf of a folder where the distribution's file would be: no error")
	}
	if _, err := s.ReadStats(statsKey); err == nil {
		t.Error("ReadStats of a folder: no error")
	}
}
