package safeio

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// MaxBytes is the largest file oracle reads or writes as an artifact, a
// trace or a manifest: 256 MiB.
const MaxBytes = 256 << 20

// Problems with a file, as ReadFile and CheckTree report them (wrapped with
// the file's name).
var (
	ErrSymlink    = errors.New("is a symlink; oracle follows no symlink under .silo: replace it with the file or folder itself")
	ErrNotRegular = errors.New("is not a regular file")
	ErrTooLarge   = fmt.Errorf("is larger than the limit of %d bytes (256 MiB)", MaxBytes)
)

// ReadFile reads the regular file at path, following a symlink to it (for
// files the user named, such as diff's operands). A FIFO, device or socket
// is an error naming it and is never read from or waited on; so is a file
// over MaxBytes.
func ReadFile(path string) ([]byte, error) { return read(path, false) }

// ReadNoFollow reads the regular file at path like ReadFile, but a symlink
// at path is an error (ErrSymlink) and is not followed. It is how files
// under .silo are read; CheckChain covers the folders above.
func ReadNoFollow(path string) ([]byte, error) { return read(path, true) }

func read(path string, noFollow bool) ([]byte, error) {
	f, err := open(path, noFollow)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAll(f, path, MaxBytes)
}

func readAll(f *os.File, path string, limit int64) ([]byte, error) {
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w (it is %s)", ErrNotRegular, kind(info.Mode()))}
	}
	// room for the whole file and the read that finds its end, so a file
	// is read in two reads whatever its size
	r := io.LimitReader(f, limit+1)
	data := make([]byte, 0, min(info.Size(), limit)+512)
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if int64(len(data)) > limit {
		return nil, &fs.PathError{Op: "read", Path: path, Err: ErrTooLarge}
	}
	return data, nil
}

// kind names a file mode for an error.
func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}

// CheckChain reports an error naming the first symlink among the path's
// components below base (base itself is not checked, so a project folder
// reached through a symlink is fine). Missing components are not an error:
// the caller finds out when it opens the file.
func CheckChain(base, path string) error {
	rel, err := filepath.Rel(base, path)
	if err != nil || rel == "." {
		return nil
	}
	cur := base
	for _, part := range splitPath(rel) {
		if part == ".." {
			return fmt.Errorf("%s is outside %s", path, base)
		}
		cur = filepath.Join(cur, part)
		info, err := os.Lstat(cur)
		if err != nil {
			return nil
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			return &fs.PathError{Op: "open", Path: cur, Err: ErrSymlink}
		}
	}
	return nil
}

func splitPath(rel string) []string {
	var parts []string
	for rel != "" && rel != "." {
		dir, file := filepath.Split(rel)
		parts = append([]string{file}, parts...)
		rel = filepath.Clean(dir)
		if rel == string(filepath.Separator) || dir == "" {
			break
		}
	}
	return parts
}

// CheckTree walks root without following symlinks and reports the first
// entry (root included) that is a symlink, or neither a folder nor a regular
// file. A missing root is not an error.
func CheckTree(root string) error {
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && path == root {
				return filepath.SkipAll
			}
			return err
		}
		return CheckEntry(path, d.Type())
	})
	if err != nil {
		return err
	}
	return nil
}

// CheckEntry reports an error when a walked entry of the given type is a
// symlink or neither a folder nor a regular file.
func CheckEntry(path string, t fs.FileMode) error {
	switch {
	case t&fs.ModeSymlink != 0:
		return &fs.PathError{Op: "open", Path: path, Err: ErrSymlink}
	case t.IsDir(), t.IsRegular():
		return nil
	}
	return &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w (it is %s); remove it", ErrNotRegular, kind(t))}
}
