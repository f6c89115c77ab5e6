package command

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"
)

// siloDir is the folder that makes a folder a project.
const siloDir = ".silo"

// noProjectError is a project folder that holds no .silo, given to a
// command that reads what only a project holds: its baselines (check) or
// its pending artifacts (review, accept, reject). Rather than every case
// missing or nothing pending, the command says so.
type noProjectError struct {
	dir     string // the project folder, as given
	nearest string // the nearest folder above it that holds .silo, if any
	program string // the binary's name
	command string // the command that needs the project
}

func (e *noProjectError) Error() string {
	where, it := "here: the current folder has", "here"
	if e.dir != "." {
		where, it = "in "+e.dir+": it has", "in "+e.dir
	}
	why, fix := "nothing is pending", ""
	if e.command == "check" {
		why, fix = "there is no baseline to compare with", fmt.Sprintf(", or record the first baselines %s with %s record", it, e.program)
	}
	msg := fmt.Sprintf("no project %s no %s folder, so %s", where, siloDir, why)
	if e.nearest != "" {
		return fmt.Sprintf("%s; the nearest project is %s: give it with --dir %s (or -C), or run %s %s there", msg, e.nearest, e.nearest, e.program, e.command)
	}
	return fmt.Sprintf("%s; give the folder that holds %s with --dir (or -C)%s", msg, siloDir, fix)
}

// comparesBaselines reports whether the command c runs compares cases with
// the project's baselines (check), and so needs a project: a folder with
// .silo. record and run make .silo when they first write in it; review,
// accept and reject require it through pendingProject.
func comparesBaselines(c *cli.Context) bool {
	return c.Command != nil && c.Command.Name == "check"
}

// requireProject returns a *noProjectError when the project folder dir,
// an existing folder, holds no .silo.
func requireProject(c *cli.Context, dir string) error {
	if _, err := os.Lstat(filepath.Join(dir, siloDir)); !errors.Is(err, fs.ErrNotExist) {
		return nil // there, or trouble the store reports when it reads it
	}
	return &noProjectError{dir: dir, nearest: nearestProject(dir), program: c.App.Name, command: c.Command.Name}
}

// pendingProject is the project folder of a command that reads the
// project's own pending artifacts (review, accept, reject): one that holds
// .silo.
func pendingProject(c *cli.Context) (string, error) {
	dir, err := project(c)
	if err != nil {
		return dir, err
	}
	return dir, requireProject(c, dir)
}

// nearestProject is the nearest folder above dir that holds a .silo
// folder, spelled relative to dir when dir is relative, or "".
func nearestProject(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for d := filepath.Dir(abs); ; d = filepath.Dir(d) {
		if info, err := os.Lstat(filepath.Join(d, siloDir)); err == nil && info.IsDir() {
			if filepath.IsAbs(dir) {
				return d
			}
			if wd, err := os.Getwd(); err == nil {
				if rel, err := filepath.Rel(wd, d); err == nil {
					return rel
				}
			}
			return d
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}
