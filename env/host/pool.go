package host

import (
	"sync"
	"time"
)

// pool holds an environment's host processes. A world takes a place in a
// host with room (fewer than per worlds open), or in a new host while
// there are fewer than max, or else in the host with the fewest worlds: a
// world that is never given back (one opened only to read its initial
// state) costs memory in its host, never a wait.
type pool struct {
	dial func() (*conn, error)
	max  int
	per  int

	mu       sync.Mutex
	hosts    []*slot
	starting int
	wake     *sync.Cond
	closed   bool
}

type slot struct {
	c    *conn
	open int // worlds in it
}

func newPool(first *conn, max, per int, dial func() (*conn, error)) *pool {
	p := &pool{dial: dial, max: max, per: per, hosts: []*slot{{c: first}}}
	p.wake = sync.NewCond(&p.mu)
	return p
}

// take returns a host for one more world.
func (p *pool) take() (*conn, error) {
	p.mu.Lock()
	for {
		p.prune()
		if p.closed {
			p.mu.Unlock()
			return nil, errPoolClosed
		}
		var least *slot
		for _, s := range p.hosts {
			if least == nil || s.open < least.open {
				least = s
			}
		}
		switch {
		case least != nil && least.open < p.per:
			least.open++
			p.mu.Unlock()
			return least.c, nil
		case len(p.hosts)+p.starting < p.max:
			p.starting++
			p.mu.Unlock()
			c, err := p.dial()
			p.mu.Lock()
			p.starting--
			if err != nil {
				p.wake.Broadcast()
				p.mu.Unlock()
				return nil, err
			}
			if p.closed {
				p.mu.Unlock()
				c.shut(time.Second)
				return nil, errPoolClosed
			}
			p.hosts = append(p.hosts, &slot{c: c, open: 1})
			p.mu.Unlock()
			return c, nil
		case least != nil:
			least.open++
			p.mu.Unlock()
			return least.c, nil
		}
		p.wake.Wait() // every host is starting
	}
}

// give hands back a world's place in c.
func (p *pool) give(c *conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, s := range p.hosts {
		if s.c == c && s.open > 0 {
			s.open--
		}
	}
	p.prune()
	p.wake.Broadcast()
}

// prune drops the hosts whose conversation has ended; p.mu is held.
func (p *pool) prune() {
	kept := p.hosts[:0]
	for _, s := range p.hosts {
		if s.c.broken() == nil {
			kept = append(kept, s)
		}
	}
	clear(p.hosts[len(kept):])
	p.hosts = kept
}

// close stops every host.
func (p *pool) close() {
	p.mu.Lock()
	p.closed = true
	hosts := p.hosts
	p.hosts = nil
	p.wake.Broadcast()
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.c.shut(time.Second)
		}()
	}
	wg.Wait()
}

type poolError string

func (e poolError) Error() string { return string(e) }

const errPoolClosed = poolError("the environment's hosts were stopped")
