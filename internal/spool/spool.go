// Package spool holds bytes a command writes now and reads back once
// later, out of memory: the cases of a report whose totals come before
// them, the fresh artifacts of a report folder written at its end.
package spool

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
)

// Spool is written, then read once from its start: in a temporary file,
// removed from its folder at once where the system allows it (so that
// nothing is left behind, even by a killed process), or in memory when no
// temporary file can be made.
type Spool struct {
	file *os.File
	w    *bufio.Writer
	mem  bytes.Buffer
}

// New returns an empty spool.
func New() *Spool {
	s := &Spool{}
	f, err := os.CreateTemp("", "oracle-spool-*")
	if err != nil {
		s.w = bufio.NewWriter(&s.mem)
		return s
	}
	os.Remove(f.Name()) // where an open file cannot be removed (Windows), Close removes it
	s.file, s.w = f, bufio.NewWriterSize(f, 64<<10)
	return s
}

func (s *Spool) Write(p []byte) (int, error) { return s.w.Write(p) }

// Reader returns what was written, from its start.
func (s *Spool) Reader() (io.Reader, error) {
	if err := s.w.Flush(); err != nil {
		return nil, fmt.Errorf("spool: %w", err)
	}
	if s.file == nil {
		return &s.mem, nil
	}
	if _, err := s.file.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("spool: %w", err)
	}
	return s.file, nil
}

// Close drops what the spool holds.
func (s *Spool) Close() {
	if s.file != nil {
		s.file.Close()
		os.Remove(s.file.Name())
	}
}
