package oracle

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/internal/safeio"
	"github.com/agent-oracle/oracle/internal/spool"
)

// freshSpool keeps the fresh artifacts of the cases a report folder shows
// until it is written, one case after the other in a spool: each field of
// the case (its key, its artifacts, its trace) as a length and its bytes.
type freshSpool struct {
	spool *spool.Spool
	n     int
	buf   []byte
}

func newFreshSpool() *freshSpool { return &freshSpool{spool: spool.New()} }

// fresh spool fields: the key's three names, the three artifacts, whether
// the trace was kept, the trace
const freshFields = 8

func (s *freshSpool) add(k baseline.Key, kept *Kept) error {
	traced := []byte{0}
	if kept.Traced {
		traced[0] = 1
	}
	s.buf = s.buf[:0]
	for _, f := range [freshFields][]byte{[]byte(k.Env), []byte(k.Agent), []byte(k.Task),
		kept.Entry.Result, kept.Entry.StateDiff, kept.Entry.Calls, traced, kept.Trace} {
		// a nil artifact (not compared) is told from an empty one
		if f == nil {
			s.buf = binary.AppendUvarint(s.buf, 0)
			continue
		}
		s.buf = binary.AppendUvarint(s.buf, uint64(len(f))+1)
		s.buf = append(s.buf, f...)
	}
	s.n++
	if _, err := s.spool.Write(s.buf); err != nil {
		return fmt.Errorf("report dir: keep the fresh artifacts of %s: %w", k, err)
	}
	return nil
}

// each hands on the cases add took, in the order it took them.
func (s *freshSpool) each(fn func(k baseline.Key, kept *Kept) error) error {
	if s.n == 0 {
		return nil
	}
	r, err := s.spool.Reader()
	if err != nil {
		return err
	}
	br := bufio.NewReader(r)
	for range s.n {
		var f [freshFields][]byte
		for i := range f {
			if f[i], err = readField(br); err != nil {
				return fmt.Errorf("report dir: read back the fresh artifacts: %w", err)
			}
		}
		k := baseline.Key{Env: string(f[0]), Agent: string(f[1]), Task: string(f[2])}
		kept := &Kept{Entry: baseline.Entry{Result: f[3], StateDiff: f[4], Calls: f[5]}, Traced: len(f[6]) == 1 && f[6][0] == 1, Trace: f[7]}
		if err := fn(k, kept); err != nil {
			return err
		}
	}
	return nil
}

// readField reads one field add wrote: nil for a nil one.
func readField(r *bufio.Reader) ([]byte, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, nil
	}
	if n-1 > safeio.MaxBytes {
		return nil, errors.New("a field larger than any artifact")
	}
	b := make([]byte, n-1)
	_, err = io.ReadFull(r, b)
	return b, err
}

func (s *freshSpool) close() { s.spool.Close() }
