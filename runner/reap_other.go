//go:build unix && !linux

package runner

// prepareReaping does nothing here: orphans of an agent go to init.
func prepareReaping() {}

// reapGroup does nothing here: orphans of an agent go to init.
func reapGroup(pgid int) {}

// reapNamespace does nothing here: there is no sandbox.
func reapNamespace(pid int) {}
