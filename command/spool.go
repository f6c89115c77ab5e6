package command

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
)

// spool holds what a report writes of its cases until the report's totals,
// which come before its cases, are known: in a temporary file, removed from
// its folder at once where the system allows it (so that nothing is left
// behind, even by a killed check), or in memory when no temporary file can
// be made. It is written, then read once from its start.
type spool struct {
	file *os.File
	w    *bufio.Writer
	mem  bytes.Buffer
}

func newSpool() *spool {
	s := &spool{}
	f, err := os.CreateTemp("", "oracle-report-*")
	if err != nil {
		s.w = bufio.NewWriter(&s.mem)
		return s
	}
	os.Remove(f.Name()) // where an open file cannot be removed (Windows), close removes it
	s.file, s.w = f, bufio.NewWriterSize(f, 64<<10)
	return s
}

func (s *spool) Write(p []byte) (int, error) { return s.w.Write(p) }

// reader returns what was written, from its start.
func (s *spool) reader() (io.Reader, error) {
	if err := s.w.Flush(); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	if s.file == nil {
		return &s.mem, nil
	}
	if _, err := s.file.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	return s.file, nil
}

func (s *spool) close() {
	if s.file != nil {
		s.file.Close()
		os.Remove(s.file.Name())
	}
}
