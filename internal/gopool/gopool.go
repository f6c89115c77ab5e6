// Package gopool runs functions on goroutines kept for reuse. A rollout
// runs its agent on a goroutine of its own, and so does a world's Call with
// each tool, so that one that never returns can be abandoned; starting a
// goroutine for each costs its creation and the growth of its stack, which
// a goroutine that waits for the next function saves.
package gopool

import "time"

// idleFor is how long a goroutine waits for a next function before it ends.
const idleFor = time.Second

// work hands a function to a waiting goroutine; the send succeeds only
// when one is waiting.
var work = make(chan func())

// Go runs f on a goroutine: a waiting one if there is one, a new one
// otherwise. f must recover its own panics: one that escapes ends the
// program, as it would with the go statement.
func Go(f func()) {
	select {
	case work <- f:
	default:
		go serve(f)
	}
}

func serve(f func()) {
	f()
	t := time.NewTimer(idleFor)
	defer t.Stop()
	for {
		select {
		case f = <-work:
			f()
			t.Reset(idleFor)
		case <-t.C:
			return
		}
	}
}
