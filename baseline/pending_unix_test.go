//go:build unix

package baseline

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agent-oracle/oracle/internal/safeio"
)

// hostilePending is a project with something pending for key and a folder
// outside it that mirrors the pending layout: a pending removal of key and
// its artifacts, which a symlink can point to.
func hostilePending(t *testing.T) (p *Pending, project, outside string) {
	t.Helper()
	dir := t.TempDir()
	project, outside = filepath.Join(dir, "project"), filepath.Join(dir, "outside")
	p = OpenPending(project)
	if err := p.Write(key, Entry{Result: []byte("{}\n")}); err != nil {
		t.Fatal(err)
	}
	agent := filepath.Join(outside, "pending", key.Env, key.Agent)
	if err := os.MkdirAll(agent, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{key.Task + ObsoleteSuffix, key.Task + ".result.json"} {
		if err := os.WriteFile(filepath.Join(agent, name), []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return p, project, outside
}

// outsideIntact fails when a file outside the project was removed.
func outsideIntact(t *testing.T, outside string) {
	t.Helper()
	for _, name := range []string{key.Task + ObsoleteSuffix, key.Task + ".result.json"} {
		if _, err := os.Lstat(filepath.Join(outside, "pending", key.Env, key.Agent, name)); err != nil {
			t.Errorf("outside the project: %v", err)
		}
	}
}

// .silo/pending follows the store's rules: a symlink anywhere on the way
// (.silo, pending, the env or agent folder, a file) is an error naming it,
// and nothing is read, written or removed through it.
func TestPendingFollowsNoSymlink(t *testing.T) {
	tests := []struct {
		name   string
		link   func(project string) string // the path made a symlink
		target func(outside string) string
	}{
		{".silo", func(p string) string { return filepath.Join(p, ".silo") },
			func(o string) string { return o }},
		{"pending", func(p string) string { return filepath.Join(p, PendingDir) },
			func(o string) string { return filepath.Join(o, "pending") }},
		{"environment folder", func(p string) string { return filepath.Join(p, PendingDir, key.Env) },
			func(o string) string { return filepath.Join(o, "pending", key.Env) }},
		{"agent folder", func(p string) string { return filepath.Join(p, PendingDir, key.Env, key.Agent) },
			func(o string) string { return filepath.Join(o, "pending", key.Env, key.Agent) }},
		{"pending removal", func(p string) string {
			return filepath.Join(p, PendingDir, key.Env, key.Agent, key.Task+ObsoleteSuffix)
		}, func(o string) string { return filepath.Join(o, "pending", key.Env, key.Agent, key.Task+ObsoleteSuffix) }},
		{"pending artifact", func(p string) string {
			return filepath.Join(p, PendingDir, key.Env, key.Agent, key.Task+".result.json")
		}, func(o string) string { return filepath.Join(o, "pending", key.Env, key.Agent, key.Task+".result.json") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, project, outside := hostilePending(t)
			link := tt.link(project)
			replaceWithSymlink(t, link, tt.target(outside))
			_, err := p.List()
			wantNamed(t, err, link, safeio.ErrSymlink)
			_, obsolete, err := p.Read(key)
			wantNamed(t, err, link, safeio.ErrSymlink)
			if obsolete {
				t.Error("a pending removal read through a symlink")
			}
			wantNamed(t, p.Remove(key), link, safeio.ErrSymlink)
			outsideIntact(t, outside)
			wantNamed(t, p.Write(key, Entry{Result: []byte("{\"new\": 1}\n")}), link, safeio.ErrSymlink)
			wantNamed(t, p.MarkObsolete(key), link, safeio.ErrSymlink)
			outsideIntact(t, outside)
			store := Open(project)
			_, err = store.Accept(p, []Key{key})
			wantNamed(t, err, link, safeio.ErrSymlink)
			if _, err := store.Read(key); !errors.Is(err, ErrNotFound) && !errors.Is(err, safeio.ErrSymlink) {
				t.Errorf("accept wrote a baseline read through a symlink: %v", err)
			}
		})
	}
}

// Only regular files under .silo/pending are read: a FIFO as an artifact or
// as a pending removal is an error naming it, never waited on.
func TestPendingReadsOnlyRegularFiles(t *testing.T) {
	for _, name := range []string{key.Task + ".result.json", key.Task + ObsoleteSuffix} {
		t.Run(name, func(t *testing.T) {
			p, project, _ := hostilePending(t)
			path := filepath.Join(project, PendingDir, key.Env, key.Agent, name)
			os.Remove(path)
			if err := syscall.Mkfifo(path, 0o644); err != nil {
				t.Fatal(err)
			}
			_, obsolete, err := p.Read(key)
			wantNamed(t, err, path, safeio.ErrNotRegular)
			if obsolete {
				t.Error("a FIFO read as a pending removal")
			}
			_, err = Open(project).Accept(p, []Key{key})
			wantNamed(t, err, path, safeio.ErrNotRegular)
		})
	}
}

// A report folder's fresh/ (accept --from) is held to the same rules: a
// symlink inside it is not followed, an artifact over the size limit is
// refused.
func TestReportFolderPending(t *testing.T) {
	dir := t.TempDir()
	report, outside := filepath.Join(dir, "report"), filepath.Join(dir, "outside")
	fresh := filepath.Join(report, "fresh")
	if err := os.MkdirAll(filepath.Join(outside, key.Agent), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, key.Agent, key.Task+".result.json"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(fresh, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(fresh, key.Env)
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	p := NewPending(fresh)
	_, err := p.List()
	wantNamed(t, err, link, safeio.ErrSymlink)
	_, _, err = p.Read(key)
	wantNamed(t, err, link, safeio.ErrSymlink)

	os.Remove(link)
	big := filepath.Join(fresh, key.Env, key.Agent, key.Task+".result.json")
	if err := os.MkdirAll(filepath.Dir(big), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(safeio.MaxBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, _, err = p.Read(key)
	wantNamed(t, err, big, safeio.ErrTooLarge)
}

// TestAcceptWritesNothingWhenOneTargetIsHostile: accept looks at every file
// it may write before it writes any, so a symlinked baseline folder or a
// FIFO where a later case's baseline goes is an error while the earlier
// cases' baselines are still as they were.
func TestAcceptWritesNothingWhenOneTargetIsHostile(t *testing.T) {
	first := Key{Env: "alpha", Agent: "solver", Task: "TASK-001"}
	second := Key{Env: "beta", Agent: "solver", Task: "TASK-001"}
	tests := []struct {
		name  string
		spoil func(t *testing.T, store *Store, outside string) string // returns the path named
	}{
		{"a symlinked environment folder", func(t *testing.T, store *Store, outside string) string {
			link := filepath.Join(store.Root, second.Env)
			if err := os.MkdirAll(store.Root, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, link); err != nil {
				t.Fatal(err)
			}
			return link
		}},
		{"a FIFO in place of a baseline", func(t *testing.T, store *Store, outside string) string {
			path := store.Path(second, "result.json")
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(path, 0o644); err != nil {
				t.Fatal(err)
			}
			return path
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			project, outside := t.TempDir(), t.TempDir()
			p := OpenPending(project)
			for _, k := range []Key{first, second} {
				if err := p.Write(k, Entry{Result: []byte("{\"new\": 1}\n"), StateDiff: []byte("{}\n")}); err != nil {
					t.Fatal(err)
				}
			}
			store := Open(project)
			named := tt.spoil(t, store, outside)
			_, err := store.Accept(p, []Key{first, second})
			if err == nil || !strings.Contains(err.Error(), named) {
				t.Fatalf("error %v, want one naming %s", err, named)
			}
			if _, err := os.Lstat(store.Path(first, "result.json")); err == nil {
				t.Error("the first case was accepted before the error")
			}
			if entries, _ := os.ReadDir(outside); len(entries) > 0 {
				t.Errorf("written outside the project: %v", entries)
			}
		})
	}
}
