package gopool

import (
	"sync"
	"testing"
	"time"
)

func TestGoRunsEveryFunction(t *testing.T) {
	const n = 200
	var wg sync.WaitGroup
	ran := make([]bool, n)
	wg.Add(n)
	for i := range n {
		Go(func() {
			defer wg.Done()
			ran[i] = true
		})
	}
	wg.Wait()
	for i, ok := range ran {
		if !ok {
			t.Fatalf("function %d did not run", i)
		}
	}
}

// A function that never returns keeps its goroutine; the others still run.
func TestGoDoesNotWaitForABlockedFunction(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	started := make(chan struct{})
	Go(func() {
		close(started)
		<-block
	})
	<-started
	done := make(chan struct{})
	Go(func() { close(done) })
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a function waited behind a blocked one")
	}
}

// A goroutine that finished a function runs the next one handed over.
func TestGoReusesAWaitingGoroutine(t *testing.T) {
	first := make(chan struct{})
	Go(func() { close(first) })
	<-first
	// the goroutine that ran first is waiting now or about to be
	reused := false
	for range 1000 {
		done := make(chan struct{})
		select {
		case work <- func() { close(done) }:
			reused = true
		default:
			time.Sleep(time.Millisecond)
			continue
		}
		<-done
		break
	}
	if !reused {
		t.Fatal("no goroutine waited for a next function")
	}
}
