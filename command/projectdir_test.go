package command

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCheckProjectDir: a folder that does not exist names the flag and the
// command that makes one; a file is not a folder; a folder is a project
// folder.
func TestCheckProjectDir(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "nothing")
	for _, tt := range []struct{ dir, want string }{
		{missing, "no project folder " + missing + "; give the folder that holds .silo with --dir (or -C), or make one with helpdesk-oracle init"},
		{file, "no project folder " + file + ": not a folder"},
		{dir, ""},
	} {
		err := checkProjectDir(tt.dir, "helpdesk-oracle")
		if got := errText(err); got != tt.want {
			t.Errorf("checkProjectDir(%s) = %q, want %q", tt.dir, got, tt.want)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
