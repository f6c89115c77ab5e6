package baseline

import (
	"os"
	"path/filepath"
	"testing"
)

// The project's pending folder ignores itself in git (a project of the
// original runner does not name it in its .gitignore); a report folder's
// fresh/ does not, and a .gitignore already there is kept.
func TestPendingIgnoresItselfInGit(t *testing.T) {
	project := t.TempDir()
	if err := OpenPending(project).Write(key, Entry{Result: []byte("{}\n")}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(project, PendingDir, ".gitignore"))
	if err != nil || string(data) != "# oracle's output, never committed\n*\n" {
		t.Errorf(".gitignore %q, %v", data, err)
	}
	if err := os.WriteFile(filepath.Join(project, PendingDir, ".gitignore"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := OpenPending(project).Write(key, Entry{Result: []byte("{}\n")}); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(project, PendingDir, ".gitignore")); string(data) != "mine\n" {
		t.Errorf("an existing .gitignore was replaced: %q", data)
	}
	fresh := filepath.Join(t.TempDir(), "fresh")
	if err := NewReportPending(fresh).Write(key, Entry{Result: []byte("{}\n")}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(fresh, ".gitignore")); err == nil {
		t.Error("a report folder's fresh/ got a .gitignore")
	}
}
