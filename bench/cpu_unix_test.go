//go:build unix

package bench

import "syscall"

// cpuTime is the process's user and system CPU time so far, in
// nanoseconds: on a machine shared with other work it measures what a
// benchmark costs better than the wall clock does.
func cpuTime() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
