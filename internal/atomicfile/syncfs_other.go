//go:build !linux

package atomicfile

import "errors"

// CanSyncFS reports whether SyncFS works on this system.
const CanSyncFS = false

// SyncFS is not available here: a caller fsyncs each file instead.
func SyncFS(dirs []string) error { return errors.ErrUnsupported }
