// Package safeio is how oracle reads files and bounds what it writes: only
// regular files are read, never through a FIFO, device or socket, and never
// more than MaxBytes; under the project's .silo folder no symlink is
// followed. The limits here (MaxBytes, MaxDepth) are shared by the writer
// and the reader, so whatever oracle records it can read back.
package safeio
