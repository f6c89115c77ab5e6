package safeio

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ReadDir reads the folder at path, sorted by name, as os.ReadDir does,
// but never waits: a FIFO, device or socket at path is an error naming it,
// opened without blocking and not read.
func ReadDir(path string) ([]fs.DirEntry, error) {
	f, err := OpenDir(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, err
}

// OpenDir opens the folder at path (following a symlink to it) without
// blocking; anything but a folder is an error naming it.
func OpenDir(path string) (*os.File, error) {
	f, info, err := openStat(path)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("is not a folder (it is %s)", kind(info.Mode()))}
	}
	return f, nil
}

// openStat opens path without blocking and says what it opened.
func openStat(path string) (*os.File, fs.FileInfo, error) {
	f, err := openAny(path)
	if err != nil {
		return nil, nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, info, nil
}

// ReadFS reads the file name of fsys as ReadFile reads a path: a regular
// file of at most MaxBytes, or an error naming it. Of a file system that
// can Stat (os.DirFS, DirFS) it looks before it opens, so a FIFO or
// /dev/zero behind a task file is refused, not waited on nor read without
// end; and it reads at most MaxBytes whatever it finds. (Files of DirFS,
// which opens without blocking, are safe from a file swapped after the
// look, too.)
func ReadFS(fsys fs.FS, name string) ([]byte, error) { return readFS(fsys, name, MaxBytes) }

func readFS(fsys fs.FS, name string, limit int) ([]byte, error) {
	check := func(info fs.FileInfo) error {
		if !info.Mode().IsRegular() {
			return &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("%w (it is %s)", ErrNotRegular, kind(info.Mode()))}
		}
		if info.Size() > int64(limit) {
			return &fs.PathError{Op: "read", Path: name, Err: ErrTooLarge}
		}
		return nil
	}
	if sfs, ok := fsys.(fs.StatFS); ok {
		info, err := sfs.Stat(name)
		if err != nil {
			return nil, err
		}
		if err := check(info); err != nil {
			return nil, err
		}
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := check(info); err != nil {
		return nil, err
	}
	data := make([]byte, 0, info.Size()+1)
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := f.Read(data[len(data):min(cap(data), limit+1)])
		data = data[:len(data)+n]
		if len(data) > limit {
			return nil, &fs.PathError{Op: "read", Path: name, Err: ErrTooLarge}
		}
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// DirFS is os.DirFS(dir) read the safe way: a file is opened without
// blocking and only when it is a regular file (following a symlink to one,
// as ReadFile does) or a folder, and a file is read to at most MaxBytes.
// A FIFO, device or socket is an error naming it.
func DirFS(dir string) fs.FS { return dirFS(dir) }

type dirFS string

func (d dirFS) path(op, name string) (string, error) {
	if !fs.ValidPath(name) {
		return "", &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	return filepath.Join(string(d), filepath.FromSlash(name)), nil
}

// Open opens a regular file (bounded) or a folder.
func (d dirFS) Open(name string) (fs.File, error) {
	p, err := d.path("open", name)
	if err != nil {
		return nil, err
	}
	f, info, err := openStat(p)
	if err != nil {
		return nil, err
	}
	switch {
	case info.IsDir():
		return f, nil
	case info.Mode().IsRegular():
		return &boundedFile{File: f, r: io.LimitReader(f, MaxBytes+1), path: p}, nil
	}
	f.Close()
	return nil, &fs.PathError{Op: "open", Path: p, Err: fmt.Errorf("%w (it is %s)", ErrNotRegular, kind(info.Mode()))}
}

// ReadFile reads a regular file of at most MaxBytes.
func (d dirFS) ReadFile(name string) ([]byte, error) {
	p, err := d.path("read", name)
	if err != nil {
		return nil, err
	}
	return ReadFile(p)
}

// ReadDir reads a folder, never waiting on what is not one.
func (d dirFS) ReadDir(name string) ([]fs.DirEntry, error) {
	p, err := d.path("readdir", name)
	if err != nil {
		return nil, err
	}
	return ReadDir(p)
}

// Stat is os.Stat of the file.
func (d dirFS) Stat(name string) (fs.FileInfo, error) {
	p, err := d.path("stat", name)
	if err != nil {
		return nil, err
	}
	return os.Stat(p)
}

// boundedFile is a regular file of a DirFS, read to at most MaxBytes: a
// file that grew past it since it was opened is an error, not an endless
// read.
type boundedFile struct {
	*os.File
	r    io.Reader
	n    int64
	path string
}

func (b *boundedFile) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if b.n += int64(n); b.n > MaxBytes {
		return n, &fs.PathError{Op: "read", Path: b.path, Err: ErrTooLarge}
	}
	return n, err
}

// ReadDir is not a folder's: a regular file has no entries.
func (b *boundedFile) ReadDir(int) ([]fs.DirEntry, error) {
	return nil, &fs.PathError{Op: "readdir", Path: b.path, Err: errors.New("not a folder")}
}

var (
	_ fs.ReadFileFS = dirFS("")
	_ fs.ReadDirFS  = dirFS("")
	_ fs.StatFS     = dirFS("")
)
