package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// conn is the conversation with one host process: requests go out with
// increasing ids, answers come back by id, in any order. A reader
// goroutine reads every line; whatever breaks the protocol (garbage, an
// answer nobody asked for, a line over the limits, the process's exit)
// ends the conversation, kills the process, and fails every request in
// flight and after with one error.
type conn struct {
	p *proc

	wmu sync.Mutex // one line at a time on stdin

	mu      sync.Mutex
	next    int64
	pending map[int64]chan *message
	streams map[int64]*mailbox // agents: every message of their id
	err     error
	done    chan struct{} // closed once err is set
	// stopped is set when oracle stopped the host on purpose (a stuck tool
	// or agent), not for a fault of it: its worlds are rebuilt elsewhere
	stopped bool
	hello   *message
	// initials is the initial state the host last sent, by task, which an
	// open it answers with "same" has again
	initials map[string]json.RawMessage
}

// dial starts a host and reads its hello, waiting at most timeout.
func dial(what string, argv []string, dir string, environ []string, maxLine int, timeout time.Duration, box Sandbox) (*conn, error) {
	p, err := start(what, argv, dir, environ, maxLine, box)
	if err != nil {
		return nil, err
	}
	c := &conn{p: p, pending: map[int64]chan *message{}, streams: map[int64]*mailbox{}, done: make(chan struct{})}
	first := make(chan *message, 1)
	go c.read(first)
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case m := <-first:
		if m.Type == "error" && m.Error != nil {
			c.shut(2 * time.Second) // it exits on its own, saying why on stderr
			note := ""
			if text := oneLineHead(c.p.tail.String(), 400); text != "" {
				note = "; stderr: " + text
			}
			return nil, fmt.Errorf("%s could not start: %s%s", what, printable(oneLineHead(m.Error.Message, 1000)), note)
		}
		if err := checkHello(m); err != nil {
			c.fail(fmt.Errorf("%s: %w", what, err))
			return nil, c.err
		}
		c.hello = m
		return c, nil
	case <-c.done:
		return nil, c.err
	case <-t.C:
		c.fail(fmt.Errorf("%s sent no hello within %v", what, timeout))
		return nil, c.err
	}
}

func checkHello(m *message) error {
	switch {
	case m.Type != "hello":
		return fmt.Errorf("its first message is %q, not hello", m.Type)
	case m.Protocol == nil:
		return errors.New("its hello names no protocol version")
	case *m.Protocol != Protocol:
		return fmt.Errorf("it speaks protocol %d; this oracle speaks protocol %d", *m.Protocol, Protocol)
	}
	return nil
}

// read reads the host's stdout until the conversation ends. The first
// message goes to first.
func (c *conn) read(first chan<- *message) {
	defer c.p.closeOut()
	for n := 1; ; n++ {
		line, err := c.p.readLine()
		switch {
		case errors.Is(err, errLineTooLong):
			c.fail(fmt.Errorf("%s wrote line %d longer than %d bytes; nothing an artifact can hold", c.p.what, n, c.p.max))
			return
		case errors.Is(err, io.EOF):
			c.exited()
			return
		case err != nil:
			c.fail(fmt.Errorf("read %s: %w", c.p.what, err))
			return
		}
		if len(line) == 0 {
			continue
		}
		m, err := parseMessage(line, n)
		if err != nil {
			c.fail(fmt.Errorf("%s: %w", c.p.what, err))
			return
		}
		if first != nil {
			first <- m
			first = nil
			continue
		}
		if err := c.deliver(m); err != nil {
			c.fail(fmt.Errorf("%s: line %d: %w", c.p.what, n, err))
			return
		}
	}
}

// exited ends the conversation with a host whose stdout closed.
func (c *conn) exited() {
	<-c.p.exited
	c.p.mu.Lock()
	killed := c.p.killed
	c.p.mu.Unlock()
	if killed {
		c.fail(fmt.Errorf("%s was stopped", c.p.what))
		return
	}
	c.fail(fmt.Errorf("%s %s%s", c.p.what, c.p.exitText(), c.p.stderrNote()))
}

// deliver hands a message to whoever waits for its id.
func (c *conn) deliver(m *message) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if box, ok := c.streams[m.ID]; ok {
		box.put(m)
		return nil
	}
	if ch, ok := c.pending[m.ID]; ok {
		delete(c.pending, m.ID)
		ch <- m
		return nil
	}
	switch {
	case m.ID == 0 && m.Type == "error" && m.Error != nil:
		return fmt.Errorf("the host reports %s: %s", printable(m.Error.Code), printable(m.Error.Message))
	case m.ID <= 0 || m.ID > c.next:
		return fmt.Errorf("a %s message for request %d, which oracle did not send", m.Type, m.ID)
	}
	return nil // the answer to a request given up
}

// fail ends the conversation with err, once, and kills the process.
func (c *conn) fail(err error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = err
	close(c.done)
	boxes := c.streams
	c.streams = map[int64]*mailbox{}
	c.mu.Unlock()
	for _, b := range boxes {
		b.close()
	}
	go c.p.kill()
}

// stop kills the host on purpose: its worlds are rebuilt in another one
// when next read (see world.ready).
func (c *conn) stop(err error) {
	c.mu.Lock()
	if c.err == nil {
		c.stopped = true
	}
	c.mu.Unlock()
	c.fail(err)
}

// stoppedOnPurpose reports whether stop ended the conversation.
func (c *conn) stoppedOnPurpose() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stopped
}

// shut stops the host: stdin closed, then killed after grace.
func (c *conn) shut(grace time.Duration) {
	c.mu.Lock()
	if c.err == nil {
		c.err = fmt.Errorf("%s was stopped", c.p.what)
		close(c.done)
	}
	c.mu.Unlock()
	c.p.stop(grace)
}

// broken returns the error that ended the conversation, or nil.
func (c *conn) broken() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// send writes a request made for a fresh id by build and registers for its
// answer, which the returned channel receives.
func (c *conn) send(build func(id int64) ([]byte, error)) (int64, chan *message, error) {
	c.mu.Lock()
	if c.err != nil {
		defer c.mu.Unlock()
		return 0, nil, c.err
	}
	c.next++
	id := c.next
	ch := make(chan *message, 1)
	c.pending[id] = ch
	c.mu.Unlock()
	line, err := build(id)
	if err == nil {
		c.wmu.Lock()
		err = c.p.write(line)
		c.wmu.Unlock()
		if err != nil {
			// the host no longer reads: it died, which the reader reports
			select {
			case <-c.done:
				err = c.err
			case <-time.After(time.Second):
				c.fail(fmt.Errorf("write to %s: %w", c.p.what, err))
				err = c.err
			}
		}
	}
	if err != nil {
		c.forget(id)
		return 0, nil, err
	}
	return id, ch, nil
}

// initial records state as the last initial state of task, and returns it;
// with state nil it returns the one recorded, if any.
func (c *conn) initial(task string, state json.RawMessage) json.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	if state == nil {
		return c.initials[task]
	}
	if c.initials == nil {
		c.initials = map[string]json.RawMessage{}
	}
	c.initials[task] = state
	return state
}

// forget stops waiting for the answer to id.
func (c *conn) forget(id int64) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// errGaveUp is what a request that ctx or the timeout ended returns.
var errGaveUp = errors.New("no answer in time")

// ask sends a request and waits for its answer, for ctx and at most
// timeout (0: no limit). An error message is returned as an *Error.
func (c *conn) ask(ctx context.Context, timeout time.Duration, build func(id int64) ([]byte, error)) (*message, error) {
	id, ch, err := c.send(build)
	if err != nil {
		return nil, err
	}
	var expire <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expire = t.C
	}
	select {
	case m := <-ch:
		return answer(m)
	case <-c.done:
		select {
		case m := <-ch: // answered as it ended
			return answer(m)
		default:
		}
		return nil, c.err
	case <-ctx.Done():
		c.forget(id)
		return nil, fmt.Errorf("%w: %w", errGaveUp, context.Cause(ctx))
	case <-expire:
		c.forget(id)
		return nil, fmt.Errorf("%w: %s did not answer within %v", errGaveUp, c.p.what, timeout)
	}
}

func answer(m *message) (*message, error) {
	if m.Type == "error" {
		if m.Error == nil {
			return nil, &Error{Code: "internal", Message: "an error message without an error"}
		}
		return nil, &Error{Code: m.Error.Code, Message: printable(strings.ReplaceAll(m.Error.Message, "\n", " "))}
	}
	return m, nil
}

// tell writes a message that has no answer.
func (c *conn) tell(line []byte) error {
	if err := c.broken(); err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.p.write(line)
}

// stream sends a request whose id then carries any number of messages
// (an agent's tool calls and its end), which the mailbox receives until
// unstream.
func (c *conn) stream(build func(id int64) ([]byte, error)) (int64, *mailbox, error) {
	box := newMailbox()
	id, ch, err := c.send(func(id int64) ([]byte, error) {
		c.mu.Lock()
		c.streams[id] = box
		c.mu.Unlock()
		return build(id)
	})
	if err != nil {
		c.unstream(id)
		return 0, nil, err
	}
	c.forget(id) // its messages go to the mailbox
	_ = ch
	return id, box, nil
}

// unstream stops taking the messages of id.
func (c *conn) unstream(id int64) {
	c.mu.Lock()
	delete(c.streams, id)
	c.mu.Unlock()
}

// mailbox is an unbounded queue of messages: the reader never waits on a
// slow receiver.
type mailbox struct {
	mu     sync.Mutex
	queue  []*message
	closed bool
	ready  chan struct{} // has a token while the queue is not empty or closed
}

func newMailbox() *mailbox { return &mailbox{ready: make(chan struct{}, 1)} }

func (b *mailbox) put(m *message) {
	b.mu.Lock()
	b.queue = append(b.queue, m)
	b.mu.Unlock()
	b.signal()
}

func (b *mailbox) close() {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.signal()
}

func (b *mailbox) signal() {
	select {
	case b.ready <- struct{}{}:
	default:
	}
}

// take returns the next message, or nil and whether the mailbox is closed
// when it is empty; wait on ready for more.
func (b *mailbox) take() (m *message, closed bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.queue) > 0 {
		m := b.queue[0]
		b.queue = b.queue[1:]
		if len(b.queue) > 0 || b.closed {
			b.signal()
		}
		return m, false
	}
	return nil, b.closed
}
