// Package gctune paces the garbage collector of a command-line run. With
// the default pace (GOGC=100) the heap may grow by as much as is live
// between two collections, 4 MiB at least: a check or record of many small
// rollouts, whose live heap is a few MiB, collects every few hundred
// rollouts and spends about a third of its CPU time on it. Start lets the
// heap grow by at least Headroom instead, re-reading the live heap after
// every collection, so a small heap is collected rarely and a large one at
// the default pace.
package gctune

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Headroom is how much the heap may grow, at least, between collections.
const Headroom = 48 << 20

// minHeap is the runtime's smallest heap goal at GOGC=100; it scales with
// GOGC, so for a live heap below it the pace that gives Headroom is the
// one that scales it to Headroom.
const minHeap = 4 << 20

var (
	mu      sync.Mutex
	running bool
	sample  = []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
)

// Start paces the collector until the returned function is called, unless
// the user set GOGC or GOMEMLIMIT, which then rule, or it is started
// already; the returned function then does nothing.
func Start() (stop func()) {
	mu.Lock()
	defer mu.Unlock()
	if running || os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	running = true
	before := debug.SetGCPercent(percent())
	arm()
	return func() {
		mu.Lock()
		defer mu.Unlock()
		running = false
		debug.SetGCPercent(before)
	}
}

// arm sets the pace again after the next collection: the cleanup of an
// object nothing refers to runs once a collection has found it unreachable.
func arm() {
	runtime.AddCleanup(new(sentinel), func(struct{}) { retune() }, struct{}{})
}

// sentinel is large enough not to share its memory block with other small
// objects, so the collection that finds it unreachable is the next one.
type sentinel [64]byte

func retune() {
	mu.Lock()
	defer mu.Unlock()
	if !running {
		return
	}
	debug.SetGCPercent(percent())
	arm()
}

// percent is the GOGC that lets the heap grow by Headroom beyond the live
// heap (to Headroom for a live heap under minHeap), or by as much as is
// live when that is more.
func percent() int {
	metrics.Read(sample)
	return percentFor(sample[0].Value.Uint64())
}

func percentFor(live uint64) int {
	return int(max(100, Headroom*100/max(live, minHeap)))
}
