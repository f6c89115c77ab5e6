package baseline

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestHashEntry: the hash names the bytes of every file and which file
// holds them; no file is "none".
func TestHashEntry(t *testing.T) {
	base := Entry{Result: []byte(`{"a":1}`), StateDiff: []byte(`{}`)}
	seen := map[string]string{HashEntry(base): "base"}
	for _, tc := range []struct {
		name string
		e    Entry
	}{
		{"a byte changed", Entry{Result: []byte(`{"a":2}`), StateDiff: []byte(`{}`)}},
		{"a file more", Entry{Result: []byte(`{"a":1}`), StateDiff: []byte(`{}`), Calls: []byte(`[]`)}},
		{"a file less", Entry{Result: []byte(`{"a":1}`)}},
		{"bytes moved between files", Entry{Result: []byte(`{"a":1}{}`), StateDiff: []byte(``)}},
		{"the same bytes in another file", Entry{Calls: []byte(`{"a":1}`), StateDiff: []byte(`{}`)}},
		{"a distribution", Entry{Stats: []byte(`{"a":1}`)}},
	} {
		h := HashEntry(tc.e)
		if !ValidHash(h) || h == NoBaselineHash {
			t.Errorf("%s: hash %q", tc.name, h)
		}
		if prev, dup := seen[h]; dup {
			t.Errorf("%s: the hash of %s", tc.name, prev)
		}
		seen[h] = tc.name
	}
	if h := HashEntry(Entry{}); h != NoBaselineHash {
		t.Errorf("no file: %q, want %q", h, NoBaselineHash)
	}
	for _, bad := range []string{"", "sha256:", "sha256:zz", "md5:" + HashEntry(base)[7:], HashEntry(base) + "0", "NONE"} {
		if ValidHash(bad) {
			t.Errorf("ValidHash(%q) is true", bad)
		}
	}
}

// TestStoreHashIsTheReadBaselines: the store's hash of a key is the hash
// of what Read (or ReadStats) gives; a symlink is refused.
func TestStoreHashIsTheReadBaselines(t *testing.T) {
	s := &Store{Root: t.TempDir()}
	if h, err := s.Hash(key); err != nil || h != NoBaselineHash {
		t.Fatalf("no baseline: %q, %v", h, err)
	}
	e := Entry{Result: []byte("{\"ok\":true}\n"), Calls: []byte("[]\n")}
	if _, err := s.Write(key, e); err != nil {
		t.Fatal(err)
	}
	read, err := s.Read(key)
	if err != nil {
		t.Fatal(err)
	}
	if h, err := s.Hash(key); err != nil || h != HashEntry(read) {
		t.Fatalf("hash %q, %v; want %q", h, err, HashEntry(read))
	}
	if h, _ := s.Reader().Hash(key); h != HashEntry(read) {
		t.Errorf("Reader.Hash %q, want %q", h, HashEntry(read))
	}
	path := s.Path(key, "calls.json")
	os.Remove(path)
	if err := os.Symlink(filepath.Join(t.TempDir(), "elsewhere"), path); err != nil {
		t.Skip(err)
	}
	if _, err := s.Hash(key); err == nil {
		t.Error("a symlink in the store is hashed")
	}
}

// TestAcceptExpecting: a key whose baseline is no longer the one compared
// is refused, every such key named and nothing written; a key whose
// baseline already holds the pending bytes is no trouble.
func TestAcceptExpecting(t *testing.T) {
	dir := t.TempDir()
	s := &Store{Root: filepath.Join(dir, "baselines")}
	p := NewReportPending(filepath.Join(dir, "report", "fresh"))
	other := Key{"crm", "solver", "TASK-002"}
	old := Entry{Result: []byte("{\"v\":1}\n")}
	fresh := Entry{Result: []byte("{\"v\":2}\n")}
	for _, k := range []Key{key, other} {
		if _, err := s.Write(k, old); err != nil {
			t.Fatal(err)
		}
		if err := p.Write(k, fresh); err != nil {
			t.Fatal(err)
		}
	}
	want := map[Key]string{key: HashEntry(old), other: HashEntry(old)}
	newer := Entry{Result: []byte("{\"v\":3}\n")}
	if _, err := s.Write(key, newer); err != nil {
		t.Fatal(err)
	}
	acc, err := s.AcceptExpecting(p, []Key{key, other}, want)
	m, ok := errors.AsType[*Moved](err)
	if !ok || acc != nil {
		t.Fatalf("accepted %v, %v; want a *Moved", acc, err)
	}
	if diff := cmp.Diff([]Key{key}, m.Keys); diff != "" {
		t.Errorf("moved (-want +got):\n%s", diff)
	}
	for k, e := range map[Key]Entry{key: newer, other: old} {
		if got, _ := s.Read(k); string(got.Result) != string(e.Result) {
			t.Errorf("%s: %s written", k, got.Result)
		}
	}
	// the baseline now holds the pending bytes: accepting again writes nothing
	if _, err := s.Write(key, fresh); err != nil {
		t.Fatal(err)
	}
	acc, err = s.AcceptExpecting(p, []Key{key, other}, want)
	if err != nil || len(acc) != 2 || len(acc[0].Wrote) != 0 || len(acc[1].Wrote) != 1 {
		t.Fatalf("accepted %+v, %v", acc, err)
	}
}
