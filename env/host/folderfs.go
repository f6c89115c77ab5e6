package host

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/agent-oracle/oracle/internal/safeio"
)

// folderFS reads an environment's folder (tasks/, candidates/) the way
// oracle reads what is under .silo: regular files only, bounded, and no
// symlink followed on the way.
type folderFS string

func (f folderFS) path(name string) (string, error) {
	if !fs.ValidPath(name) {
		return "", &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	p := filepath.Join(string(f), filepath.FromSlash(name))
	if err := safeio.CheckChain(string(f), p); err != nil {
		return "", err
	}
	return p, nil
}

// Open opens a folder (for fs.Glob) or a file, never through a symlink.
func (f folderFS) Open(name string) (fs.File, error) {
	p, err := f.path(name)
	if err != nil {
		return nil, err
	}
	if info, err := os.Lstat(p); err == nil && info.Mode()&fs.ModeSymlink != 0 {
		return nil, &fs.PathError{Op: "open", Path: p, Err: safeio.ErrSymlink}
	}
	return os.Open(p)
}

// ReadDir lists a folder.
func (f folderFS) ReadDir(name string) ([]fs.DirEntry, error) {
	p, err := f.path(name)
	if err != nil {
		return nil, err
	}
	return os.ReadDir(p)
}

// ReadFile reads a regular file that is no symlink.
func (f folderFS) ReadFile(name string) ([]byte, error) {
	p, err := f.path(name)
	if err != nil {
		return nil, err
	}
	return safeio.ReadNoFollow(p)
}

// Glob is fs.Glob that fails, where fs.Glob would find nothing, on a
// folder of the pattern that is (or holds) a symlink or something other
// than files and folders: tasks/ linked elsewhere is trouble, never an
// environment without tasks.
func (f folderFS) Glob(pattern string) ([]string, error) {
	if dir := path.Dir(pattern); fs.ValidPath(dir) {
		if err := safeio.CheckTree(filepath.Join(string(f), filepath.FromSlash(dir))); err != nil {
			return nil, err
		}
	}
	return fs.Glob(globless{f}, pattern)
}

// globless is a folderFS without its Glob, for fs.Glob.
type globless struct{ f folderFS }

func (g globless) Open(name string) (fs.File, error)          { return g.f.Open(name) }
func (g globless) ReadDir(name string) ([]fs.DirEntry, error) { return g.f.ReadDir(name) }

// has reports whether the folder holds name.
func (f folderFS) has(name string) bool {
	_, err := os.Lstat(filepath.Join(string(f), filepath.FromSlash(name)))
	return !errors.Is(err, fs.ErrNotExist)
}
