package gctune

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// current returns the GOGC in force.
func current() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// Start sets a pace that gives a small live heap Headroom to grow, sets it
// again after each collection, and stop puts the pace back.
func TestStartPacesTheCollector(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	stop := Start()
	if p := current(); p <= 100 || p > Headroom*100/minHeap {
		t.Errorf("GOGC = %d while started with a small heap, want over 100, at most %d", p, Headroom*100/minHeap)
	}
	debug.SetGCPercent(100)
	retuned := false
	for range 200 {
		runtime.GC()
		if current() > 100 {
			retuned = true
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if !retuned {
		t.Error("the pace was not set again after a collection")
	}
	stop()
	if p := current(); p != 100 {
		t.Errorf("GOGC = %d after stop, want 100 as before Start", p)
	}
	runtime.GC()
	time.Sleep(20 * time.Millisecond)
	if p := current(); p != 100 {
		t.Errorf("GOGC = %d after stop and a collection, want 100", p)
	}
}

// A user's GOGC or GOMEMLIMIT rules.
func TestStartLeavesTheUsersPace(t *testing.T) {
	for _, v := range []string{"GOGC", "GOMEMLIMIT"} {
		t.Run(v, func(t *testing.T) {
			t.Setenv(v, "50")
			defer debug.SetGCPercent(debug.SetGCPercent(50))
			stop := Start()
			defer stop()
			if p := current(); p != 50 {
				t.Errorf("GOGC = %d, want the 50 in force", p)
			}
		})
	}
}

func TestPercent(t *testing.T) {
	tests := []struct {
		live uint64
		want int
	}{
		{0, Headroom * 100 / minHeap},
		{minHeap, Headroom * 100 / minHeap},
		{Headroom / 4, 400},
		{Headroom, 100},
		{4 * Headroom, 100},
	}
	for _, tt := range tests {
		if got := percentFor(tt.live); got != tt.want {
			t.Errorf("percentFor(%d) = %d, want %d", tt.live, got, tt.want)
		}
	}
}
