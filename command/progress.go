package command

import (
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/agent-oracle/oracle/baseline"
)

// progressEvery is how often a progress line is printed when stderr is
// not a terminal (a CI log).
const progressEvery = 5 * time.Second

// progress shows how far a run of cases is, on stderr: on a terminal one
// line rewritten in place as each case finishes; elsewhere a line at most
// every progressEvery ("[4,210/10,000] 38 s"), so a long run in CI says it
// is alive without flooding the log, and a short one prints nothing.
type progress struct {
	w        io.Writer
	terminal bool
	every    time.Duration
	now      func() time.Time

	mu      sync.Mutex
	start   time.Time
	last    time.Time // when the last line was printed (non-terminal)
	printed bool
}

func newProgress(w io.Writer, terminal bool) *progress {
	p := &progress{w: w, terminal: terminal, every: progressEvery, now: time.Now}
	p.start = p.now()
	p.last = p.start
	return p
}

// Done is called as each case finishes.
func (p *progress) Done(done, total int, key baseline.Key) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if p.terminal {
		fmt.Fprintf(p.w, "\r\033[K[%s/%s] %s %s", thousands(done), thousands(total), seconds(now.Sub(p.start)), safe(key.String()))
		return
	}
	if now.Sub(p.last) < p.every && done < total {
		return
	}
	if done == total && !p.printed {
		return // a run short enough never to print says nothing
	}
	p.last, p.printed = now, true
	fmt.Fprintf(p.w, "[%s/%s] %s\n", thousands(done), thousands(total), seconds(now.Sub(p.start)))
}

// End is called once all cases have finished.
func (p *progress) End() {
	if p.terminal {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

// thousands writes n with commas between groups of three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// seconds writes d in whole seconds: "38 s".
func seconds(d time.Duration) string {
	return strconv.Itoa(int(d/time.Second)) + " s"
}
