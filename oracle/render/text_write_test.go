package render

import (
	"errors"
	"testing"

	"github.com/agent-oracle/oracle/oracle/report"
)

// failingWriter fails every write after the first n bytes.
type failingWriter struct{ n int }

var errFull = errors.New("disk full")

func (f *failingWriter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		n := f.n
		f.n = 0
		return n, errFull
	}
	f.n -= len(p)
	return len(p), nil
}

// TestTextReturnsWriteErrors: a report that cannot be written is an error,
// not a silently short report.
func TestTextReturnsWriteErrors(t *testing.T) {
	r := &report.Report{}
	for _, n := range []int{0, 5} {
		if err := Text(&failingWriter{n: n}, r, Options{}); !errors.Is(err, errFull) {
			t.Errorf("Text on a writer that fails after %d bytes = %v, want %v", n, err, errFull)
		}
		if err := PathDiffs(&failingWriter{n: n}, nil, Colors{}); !errors.Is(err, errFull) {
			t.Errorf("PathDiffs on a writer that fails after %d bytes = %v, want %v", n, err, errFull)
		}
	}
}
