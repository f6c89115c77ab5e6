package env

import "sync"

// buffers keeps the buffers of states' JSON for the rollouts to come: a
// rollout writes its final state's JSON once, reads it to diff and grade,
// and is done with it (see Release).
type buffers struct{ pool sync.Pool }

// get returns an empty buffer, with the capacity of one given back if
// there is one.
func (b *buffers) get() []byte {
	if p, ok := b.pool.Get().(*[]byte); ok {
		return (*p)[:0]
	}
	return nil
}

// put gives a buffer back; nothing may read it afterwards.
func (b *buffers) put(buf []byte) {
	buf = buf[:0]
	b.pool.Put(&buf)
}
