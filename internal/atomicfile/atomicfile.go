// Package atomicfile writes a file so that a reader, or a machine that loses
// power, sees either its old bytes or its new ones, never a mix: the bytes go
// to a temporary file in the same folder, which is fsynced, closed and
// renamed over the file, and then the folder is fsynced so the rename itself
// is durable.
//
// No symlink is followed: every folder between the base folder a caller
// guards and the file is looked at (internal/safeio's CheckChain) before
// and after the folders are made, Write refuses a symlink, FIFO or other
// non-regular file where the file goes (safeio.CheckWriteTarget), and a
// rename replaces a name, it never writes through it.
package atomicfile

import (
	"bufio"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"

	"github.com/agent-oracle/oracle/internal/safeio"
)

// Writer writes files under Base: no folder between Base and a file it
// writes may be a symlink (Base itself may be reached through one).
type Writer struct {
	Base string
	// WriteHook, when set, writes the bytes to the temporary file in place
	// of (*os.File).Write; tests use it to fail a write halfway.
	WriteHook func(f *os.File, data []byte) (int, error)
	// NoSync leaves the temporary files of WriteTemp and WriteTempIn
	// unsynced: the caller makes them durable with SyncFS before it
	// renames them, so that a rename never shows a file whose bytes a
	// power loss could take back.
	NoSync bool
}

// Write writes data to path: temporary file, fsync, rename, folder fsync.
// Something other than a regular file at path is an error naming it. On
// failure the temporary file is removed and path is untouched.
func (w Writer) Write(path string, data []byte) error {
	return w.replace(path, w.fill(data))
}

// WriteFrom is Write for content that write writes, in pieces: what a
// reader sees at path is the old file or all of what write wrote. An
// error from write leaves path untouched.
func (w Writer) WriteFrom(path string, write func(io.Writer) error) error {
	return w.replace(path, func(f *os.File) error {
		bw := bufio.NewWriterSize(f, 64<<10)
		if err := write(bw); err != nil {
			return err
		}
		return bw.Flush()
	})
}

// replace puts at path a new file that fill writes.
func (w Writer) replace(path string, fill func(f *os.File) error) error {
	w.NoSync = false // renamed at once: nothing else would sync it
	if err := safeio.CheckChain(w.Base, filepath.Dir(path)); err != nil {
		return err
	}
	if err := safeio.CheckWriteTarget(path); err != nil {
		return err
	}
	if err := w.MakeDir(filepath.Dir(path)); err != nil {
		return err
	}
	tmp, err := w.tempWith(path, fill)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return SyncDir(filepath.Dir(path))
}

// Create writes data to path, which must not exist yet: temporary file,
// fsync, a hard link to path, which no existing name lets through
// (fs.ErrExist), folder fsync. A reader, or a machine that loses power,
// sees no file or the whole file. The folders up to path are made, none
// of them a symlink.
func (w Writer) Create(path string, data []byte) error {
	w.NoSync = false
	tmp, err := w.WriteTemp(path, data)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, path); err != nil {
		return err
	}
	return SyncDir(filepath.Dir(path))
}

// WriteTemp writes data to a new temporary file in path's folder (made if
// need be), fsyncs (unless NoSync) and closes it with mode 0644, and returns its name, for a
// caller that renames several files into place together (and then calls
// SyncDir for their folders). On failure nothing is left.
func (w Writer) WriteTemp(path string, data []byte) (name string, err error) {
	if err := w.MakeDir(filepath.Dir(path)); err != nil {
		return "", err
	}
	return w.WriteTempIn(path, data)
}

// MakeDir makes the folder dir and those above it, up to Base, refusing a
// symlink among them before and after.
func (w Writer) MakeDir(dir string) error {
	if err := safeio.CheckChain(w.Base, dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// MkdirAll follows symlinks: look again now that the folders exist
	return safeio.CheckChain(w.Base, dir)
}

// tempCount numbers this process's temporary files.
var tempCount atomic.Uint64

// WriteTempIn is WriteTemp in a folder that MakeDir has made, for a caller
// that writes many files to a few folders and makes each folder once. The
// temporary file is named for path, this process and a counter, and
// created only if no such file exists.
func (w Writer) WriteTempIn(path string, data []byte) (name string, err error) {
	return w.tempWith(path, w.fill(data))
}

// fill writes data to a temporary file (with WriteHook, when set).
func (w Writer) fill(data []byte) func(f *os.File) error {
	write := w.WriteHook
	if write == nil {
		write = (*os.File).Write
	}
	return func(f *os.File) error {
		_, err := write(f, data)
		return err
	}
}

// tempWith makes a new temporary file for path, lets fill write it,
// then fsyncs (unless NoSync) and closes it with mode 0644, and returns its
// name. On failure nothing is left.
func (w Writer) tempWith(path string, fill func(f *os.File) error) (name string, err error) {
	prefix := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp-"+strconv.Itoa(os.Getpid())+"-")
	var tmp *os.File
	for range 100 {
		tmp, err = os.OpenFile(prefix+strconv.FormatUint(tempCount.Add(1), 10), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return "", err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err = fill(tmp); err != nil {
		return "", err
	}
	// the mode on the file, whatever the umask
	if err = tmp.Chmod(0o644); err != nil {
		return "", err
	}
	if !w.NoSync {
		if err = tmp.Sync(); err != nil {
			return "", err
		}
	}
	if err = tmp.Close(); err != nil {
		return "", err
	}
	return tmp.Name(), nil
}

// Write writes data to path with a Writer whose base is base.
func Write(base, path string, data []byte) error {
	return Writer{Base: base}.Write(path, data)
}

// SyncFile fsyncs the file at path.
func SyncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// SyncDir fsyncs a folder so the renames into it survive a power loss.
// Systems that cannot sync a folder (fs.ErrInvalid) are not an error.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, fs.ErrInvalid) {
		return err
	}
	return nil
}

// IgnoreInGit writes a .gitignore of "*" into dir, a folder of oracle's
// own output (run folders, pending artifacts) that w.MakeDir made, unless
// dir already has one: so that a project whose own .gitignore does not
// name the folder (a project of the original runner) commits none of it.
// It is best effort: a folder it cannot write to is left as it is.
func (w Writer) IgnoreInGit(dir string) {
	path := filepath.Join(dir, ".gitignore")
	if _, err := os.Lstat(path); err == nil {
		return
	}
	w.Create(path, []byte("# oracle's output, never committed\n*\n"))
}
