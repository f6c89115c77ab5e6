package runner

import (
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

var subreaper struct {
	once sync.Once
	ok   bool
}

// prepareReaping makes the process a child subreaper, once: the orphans of
// an exec agent's process group are then re-parented to the runner, which
// reaps them in reapGroup, instead of to an init that may never reap them.
func prepareReaping() {
	subreaper.once.Do(func() {
		subreaper.ok = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == nil
	})
}

// reapGroup reaps the killed members of process group pgid that are the
// runner's children, until none is left or a few seconds have passed. The
// group's leader must have been reaped already.
func reapGroup(pgid int) {
	if !subreaper.ok {
		return
	}
	deadline := time.Now().Add(5 * time.Second)
	pause := 100 * time.Microsecond
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-pgid, &ws, syscall.WNOHANG, nil)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return // ECHILD: no child left in the group
		case pid > 0:
			continue
		}
		// members are still dying
		if time.Now().After(deadline) {
			return
		}
		time.Sleep(pause)
		pause = min(2*pause, 10*time.Millisecond)
	}
}

// reapNamespace waits for the init of a sandbox's PID namespace, whose
// bwrap has been reaped. Either bwrap reaped it, and with it every process
// of the namespace, or it is the runner's child now and dies of bwrap's
// death: its exit comes only once the kernel has killed every process of
// the namespace. Nothing of the agent survives the wait.
func reapNamespace(pid int) {
	if pid <= 0 || !subreaper.ok {
		return
	}
	for {
		var ws syscall.WaitStatus
		_, err := syscall.Wait4(pid, &ws, 0, nil)
		if err != syscall.EINTR {
			return // reaped, or ECHILD: not the runner's child
		}
	}
}
