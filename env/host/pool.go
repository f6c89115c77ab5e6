package host

import (
	"sync"
	"time"
)

// pool holds an environment's host processes. A world takes a place in a
// host with room (fewer than per worlds open), or else in the host with the
// fewest worlds. Once growAfter worlds have had to share a full host and
// there may be more hosts (fewer than max), one more starts in the
// background: a check pays for one host's start before its first rollout,
// a short one never for more, and a long one gets a host per job. A world that is never given back
// (one opened only to read its initial state) costs memory in its host,
// never a wait.
type pool struct {
	dial func() (*conn, error)
	max  int
	per  int

	mu       sync.Mutex
	hosts    []*slot
	starting int
	shared   int   // worlds given a full host since the last growth
	growErr  error // why the last host started in the background did not
	growing  sync.WaitGroup
	wake     *sync.Cond
	closed   bool
}

// growAfter is how many worlds share a full host before another starts:
// a host's start (Node and tsx: a few hundred milliseconds of CPU) is worth
// it for a long run of rollouts, not for a dozen.
const growAfter = 16

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
	defer p.mu.Unlock()
	for {
		p.prune()
		if p.closed {
			return nil, errPoolClosed
		}
		least := p.least()
		switch {
		case least != nil && least.open < p.per:
		case least != nil:
			p.shared++
			if p.shared >= growAfter && p.growErr == nil && len(p.hosts)+p.starting < p.max {
				p.shared = 0
				p.grow()
			}
		case p.starting > 0:
			p.wake.Wait() // the only hosts to come are starting
			continue
		default:
			// no host is left (the last one failed): start one and wait
			p.starting++
			p.mu.Unlock()
			c, err := p.dial()
			p.mu.Lock()
			p.starting--
			p.wake.Broadcast()
			if err != nil {
				return nil, err
			}
			if p.closed {
				p.mu.Unlock()
				c.shut(time.Second)
				p.mu.Lock()
				return nil, errPoolClosed
			}
			least = &slot{c: c}
			p.hosts = append(p.hosts, least)
		}
		least.open++
		return least.c, nil
	}
}

// least is the live host with the fewest worlds; p.mu is held.
func (p *pool) least() *slot {
	var least *slot
	for _, s := range p.hosts {
		if least == nil || s.open < least.open {
			least = s
		}
	}
	return least
}

// grow starts one more host in the background; p.mu is held. A host that
// does not start leaves the pool as it is, and it grows no more.
func (p *pool) grow() {
	p.starting++
	p.growing.Add(1)
	go func() {
		defer p.growing.Done()
		c, err := p.dial()
		p.mu.Lock()
		p.starting--
		closed := p.closed
		switch {
		case err != nil:
			p.growErr = err
		case !closed:
			p.hosts = append(p.hosts, &slot{c: c})
		}
		p.wake.Broadcast()
		p.mu.Unlock()
		if err == nil && closed {
			c.shut(time.Second) // close waits for it: no host outlives the pool
		}
	}()
}

// any returns a live host without taking a place in it (for an agent
// module that runs beside the worlds), starting one if there is none.
func (p *pool) any() (*conn, error) {
	p.mu.Lock()
	p.prune()
	least := p.least()
	p.mu.Unlock()
	if least != nil {
		return least.c, nil
	}
	c, err := p.take()
	if err == nil {
		p.give(c)
	}
	return c, err
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
	p.growing.Wait()
}

type poolError string

func (e poolError) Error() string { return string(e) }

const errPoolClosed = poolError("the environment's hosts were stopped")
