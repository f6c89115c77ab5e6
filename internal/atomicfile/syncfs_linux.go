package atomicfile

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// CanSyncFS reports whether SyncFS works on this system.
const CanSyncFS = true

// SyncFS flushes to disk, with one syncfs(2) per file system, every file
// system that holds one of dirs: the data and names of every file written
// there so far, those of other programs included. A caller that writes many
// temporary files with Writer.NoSync calls it once before renaming them,
// where one fsync per file would cost a journal commit each. A system or
// sandbox that refuses syncfs gives an error matching errors.ErrUnsupported
// or fs.ErrPermission.
func SyncFS(dirs []string) error {
	synced := map[uint64]bool{}
	for _, dir := range dirs {
		if err := syncFSOf(dir, synced); err != nil {
			return err
		}
	}
	return nil
}

func syncFSOf(dir string, synced map[uint64]bool) error {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return &os.PathError{Op: "open", Path: dir, Err: err}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return &os.PathError{Op: "stat", Path: dir, Err: err}
	}
	if synced[st.Dev] {
		return nil
	}
	if err := unix.Syncfs(fd); err != nil {
		// ENOSYS matches errors.ErrUnsupported and EPERM fs.ErrPermission:
		// a caller then fsyncs each file
		return fmt.Errorf("flush the file system of %s: %w", dir, err)
	}
	synced[st.Dev] = true
	return nil
}
