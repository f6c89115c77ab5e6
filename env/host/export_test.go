package host

// Hosts returns how many host processes of e are running, for the
// benchmarks, which wait for the ones starting in the background.
func Hosts(e *Environment) int {
	if e.pool == nil {
		return 0
	}
	e.pool.mu.Lock()
	defer e.pool.mu.Unlock()
	e.pool.prune()
	return len(e.pool.hosts)
}
