package host

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"github.com/agent-oracle/oracle/internal/secret"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"
)

// stderrKept is how much of the end of a host's stderr is kept for errors.
const stderrKept = 8 << 10

// proc is one running host process: its stdin, the lines of its stdout,
// the end of its stderr.
type proc struct {
	what string // "the Node host of shop", for messages
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	max  int // longest line read from stdout
	// closeOut closes the read end of stdout, once the reader is done
	closeOut func() error

	tail   tail
	tailed chan struct{} // closed once stderr is read to its end

	exited  chan struct{} // closed once the process has been reaped
	waitErr error         // its exit; read after exited is closed
	killed  bool          // set before the runner kills it
	mu      sync.Mutex
}

// start starts argv in dir with environ (nil: oracle's own) as box says
// (see contain.go: an environment and a folder of its own, the sandbox),
// in a process group of its own.
func start(what string, argv []string, dir string, environ []string, maxLine int, box Sandbox) (*proc, error) {
	if len(argv) == 0 {
		return nil, errors.New("no host command")
	}
	mode, err := box.resolve()
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", what, err)
	}
	own, err := os.MkdirTemp("", "oracle-host-")
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", what, err)
	}
	if mode == SandboxBwrap {
		bwrap, _ := bwrapWorks()
		argv = append(bwrapArgs(bwrap, box, dir, own, argv), argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, hostEnviron(environ, own)
	setGroup(cmd)
	// pipes of its own, not exec's: Wait then closes none of the ends the
	// readers still read when the process is gone
	var ends []*os.File
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		ends = append(ends, r, w)
		return r, w, err
	}
	closeAll := func() {
		for _, f := range ends {
			if f != nil {
				f.Close()
			}
		}
	}
	inR, inW, err1 := pipe()
	outR, outW, err2 := pipe()
	errR, errW, err3 := pipe()
	if err := errors.Join(err1, err2, err3); err != nil {
		closeAll()
		os.RemoveAll(own)
		return nil, fmt.Errorf("start %s: %w", what, err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	if err := cmd.Start(); err != nil {
		closeAll()
		os.RemoveAll(own)
		return nil, fmt.Errorf("start %s: %w", what, err)
	}
	inR.Close()
	outW.Close()
	errW.Close()
	p := &proc{what: what, cmd: cmd, in: inW, out: bufio.NewReaderSize(outR, 64<<10), max: maxLine,
		tailed: make(chan struct{}), exited: make(chan struct{})}
	go func() {
		io.Copy(&p.tail, errR)
		errR.Close()
		close(p.tailed)
	}()
	go func() {
		p.waitErr = cmd.Wait()
		killGroup(cmd) // what it started in its group goes with it
		os.RemoveAll(own)
		close(p.exited)
	}()
	p.closeOut = outR.Close
	return p, nil
}

// errLineTooLong is the error of a line over the limit.
var errLineTooLong = errors.New("line too long")

// readLine returns the next line of stdout without its newline. A line
// over the limit is errLineTooLong, and reading stops there.
func (p *proc) readLine() ([]byte, error) {
	var line []byte
	for {
		chunk, err := p.out.ReadSlice('\n')
		if len(line)+len(chunk) > p.max+1 {
			return nil, errLineTooLong
		}
		switch {
		case err == nil && line == nil:
			return bytes.Clone(bytes.TrimSuffix(chunk[:len(chunk)-1], []byte("\r"))), nil
		case err == nil:
			line = append(line, chunk[:len(chunk)-1]...)
			return bytes.TrimSuffix(line, []byte("\r")), nil
		case errors.Is(err, bufio.ErrBufferFull):
			line = append(line, chunk...)
		case errors.Is(err, io.EOF) && len(line)+len(chunk) > 0:
			return append(line, chunk...), nil // a last line without its newline
		default:
			return nil, err
		}
	}
}

// write writes one line to stdin.
func (p *proc) write(line []byte) error {
	_, err := p.in.Write(line)
	return err
}

// stop closes stdin, which tells the host to exit, waits up to grace for it
// to, then kills its process group. It returns once the process is reaped.
func (p *proc) stop(grace time.Duration) {
	p.in.Close()
	select {
	case <-p.exited:
		return
	case <-time.After(grace):
	}
	p.kill()
	<-p.exited
}

// kill kills the process group at once, and returns once it is reaped.
func (p *proc) kill() {
	p.mu.Lock()
	p.killed = true
	p.mu.Unlock()
	killGroup(p.cmd)
	p.in.Close()
	<-p.exited
}

// exitText says how the process ended, once it has.
func (p *proc) exitText() string {
	var ee *exec.ExitError
	if errors.As(p.waitErr, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return "was killed by signal " + ws.Signal().String()
		}
		return fmt.Sprintf("exited with status %d", ee.ExitCode())
	}
	if p.waitErr != nil {
		return "failed: " + p.waitErr.Error()
	}
	return "exited with status 0"
}

// stderrNote is the end of the host's stderr on one line, for an error:
// "; stderr: …".
func (p *proc) stderrNote() string {
	// what the process wrote before it died is read to its end, briefly
	select {
	case <-p.tailed:
	case <-time.After(200 * time.Millisecond):
	}
	if note := oneLine(p.tail.String(), 400); note != "" {
		return "; stderr: " + note
	}
	return "; its stderr was empty"
}

// tail keeps the last stderrKept bytes written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if over := len(t.buf) - stderrKept; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(b), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf
	for len(b) > 0 && !utf8.RuneStart(b[0]) {
		b = b[1:]
	}
	return secret.String(strings.ToValidUTF8(string(b), "\uFFFD"))
}

// oneLine is the end of text, at most max bytes, its lines joined by " | ",
// without the frames of a Node stack ("at …"), which say little.
func oneLine(text string, max int) string {
	s := joinLines(text)
	if len(s) <= max {
		return s
	}
	cut := len(s) - max
	for cut < len(s) && !utf8.RuneStart(s[cut]) {
		cut++
	}
	return "…" + s[cut:]
}

// oneLineHead is oneLine keeping the start of text: where an error that
// stopped a module from loading says where it is.
func oneLineHead(text string, max int) string {
	s := joinLines(text)
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func joinLines(text string) string {
	var parts []string
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "at ") {
			parts = append(parts, printable(l))
		}
	}
	return strings.Join(parts, " | ")
}

// printable is text from a host (its stderr, its error messages) as
// errors may carry it: the process's secrets (internal/secret) replaced,
// as in artifacts, and what a terminal would act on escaped: control
// characters and the marks that reorder text (bidirectional controls)
// become \x1b, \u202e and the like.
func printable(s string) string {
	var b strings.Builder
	for _, r := range secret.String(s) {
		switch {
		case r == utf8.RuneError || r == '\t':
			b.WriteRune(r)
		case r < 0x20 || r >= 0x7f && r < 0xa0:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r == 0x061c || r == 0x200e || r == 0x200f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
