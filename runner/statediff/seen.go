package statediff

import (
	"bytes"
	"hash/maphash"
	"sync"
)

// Every rollout of a task starts from the same state, so the state before
// is usually one that was diffed already. The scan of a state before seen
// a second time is kept, for the last few such states up to a size, and a
// state before with the same bytes is not scanned again; a state before
// seen once costs a hash. A kept scan is read only: it holds its own copy
// of the bytes and lists that are not lent from the pool.

const (
	seenStates   = 8         // scans kept
	seenHashes   = 64        // states before remembered by their hash
	seenMaxBytes = 256 << 10 // larger states are scanned each time, and what is kept stays small
)

type seenState struct {
	data []byte
	top  map[string]topValue
}

var seen struct {
	sync.Mutex
	states [seenStates]*seenState
	next   int
	hashes [seenHashes]uint64
	nextH  int
}

var seed = maphash.MakeSeed()

// scanBefore returns the top-level values of the state before, from the
// kept scans when its bytes were diffed before.
func (l *lists) scanBefore(data []byte) (map[string]topValue, error) {
	if len(data) > seenMaxBytes {
		return l.topLevel(data, nil)
	}
	seen.Lock()
	states := seen.states // compared outside the lock: a kept scan never changes
	seen.Unlock()
	// a kept state is compared before any hash (states of another length
	// at once): the common case, a state diffed before, costs one
	// comparison
	for _, s := range states {
		if s != nil && bytes.Equal(s.data, data) {
			return s.top, nil
		}
	}
	h := maphash.Bytes(seed, data)
	seen.Lock()
	again := false
	for _, x := range seen.hashes {
		again = again || x == h
	}
	if !again {
		seen.hashes[seen.nextH] = h
		seen.nextH = (seen.nextH + 1) % seenHashes
	}
	seen.Unlock()
	if !again {
		return l.topLevel(data, nil)
	}
	s := &seenState{data: bytes.Clone(data)}
	top, err := (&lists{own: true}).topLevel(s.data, nil)
	if err != nil {
		return nil, err
	}
	s.top = top
	seen.Lock()
	seen.states[seen.next] = s
	seen.next = (seen.next + 1) % seenStates
	seen.Unlock()
	return top, nil
}
