//go:build unix

package host

import (
	"io/fs"
	"os"
	"syscall"
)

// ownedByUser reports whether the file of info is the process's user's.
func ownedByUser(info fs.FileInfo) bool {
	st, ok := info.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
