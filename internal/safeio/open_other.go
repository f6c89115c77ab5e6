//go:build !unix

package safeio

import (
	"io/fs"
	"os"
)

// open opens path for reading. Without O_NOFOLLOW it looks at the path with
// Lstat first; there are no FIFOs to block on here.
func open(path string, noFollow bool) (*os.File, error) {
	info, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if noFollow && info.Mode()&fs.ModeSymlink != 0 {
		return nil, &fs.PathError{Op: "open", Path: path, Err: ErrSymlink}
	}
	if info.Mode()&fs.ModeSymlink == 0 && !info.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: path, Err: ErrNotRegular}
	}
	return os.Open(path)
}

// OpenFlagsNoFollow is 0 where there is no O_NOFOLLOW; callers Lstat first.
const OpenFlagsNoFollow = 0

// openAny opens a folder or a regular file at path, following a symlink.
func openAny(path string) (*os.File, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() && !info.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "open", Path: path, Err: ErrNotRegular}
	}
	return os.Open(path)
}
