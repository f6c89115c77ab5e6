package safeio

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// CheckWriteTarget returns an error naming path when something other than
// a regular file is there: a symlink (ErrSymlinkWrite), a FIFO, a device
// or a folder (ErrNotRegular). Nothing there is fine. The one atomic writer
// (internal/atomicfile) looks with it before it replaces a file.
func CheckWriteTarget(path string) error {
	switch info, err := os.Lstat(path); {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	case info.Mode()&fs.ModeSymlink != 0:
		return &fs.PathError{Op: "write", Path: path, Err: ErrSymlinkWrite}
	case !info.Mode().IsRegular():
		return &fs.PathError{Op: "write", Path: path, Err: fmt.Errorf("%w (it is %s); remove it", ErrNotRegular, kind(info.Mode()))}
	}
	return nil
}

// ErrSymlinkWrite is WriteFile's error for a symlink where it would write.
var ErrSymlinkWrite = errors.New("is a symlink; oracle writes through no link: remove it")
