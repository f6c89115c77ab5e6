package command

import (
	"bytes"
	"fmt"
	"io"

	"github.com/agent-oracle/oracle/internal/canon"
	"github.com/agent-oracle/oracle/internal/spool"
	"github.com/agent-oracle/oracle/oracle"
)

// jsonCases spools the JSON of a report's cases, as they appear in its
// "cases" array: the JSON report, written from the cases as they end.
type jsonCases struct {
	spool   *spool.Spool
	n       int
	scratch []byte
}

// add appends the JSON of one case.
func (s *jsonCases) add(cr *oracle.CaseReport) error {
	compact, err := canon.Compact(cr)
	if err != nil {
		return err
	}
	s.scratch = s.scratch[:0]
	if s.n > 0 {
		s.scratch = append(s.scratch, ",\n"...)
	}
	s.scratch = append(s.scratch, "    "...)
	if s.scratch, err = canon.AppendIndent(s.scratch, compact, "    ", "  "); err != nil {
		return err
	}
	s.n++
	_, err = s.spool.Write(s.scratch)
	return err
}

// write writes rep with the cases added, as writeJSON writes the whole
// report.
func (s *jsonCases) write(w io.Writer, rep *oracle.Report) error {
	head, err := canon.Marshal(withCases(rep, []*oracle.CaseReport{}))
	if err != nil {
		return err
	}
	const empty = "[]\n}\n" // the cases, last in the report, and its end
	if !bytes.HasSuffix(head, []byte(empty)) {
		return fmt.Errorf("report: its cases are not last (%q)", head[max(0, len(head)-20):])
	}
	if s.n == 0 {
		_, err = w.Write(head)
		return err
	}
	cases, err := s.spool.Reader()
	if err != nil {
		return err
	}
	if _, err := w.Write(head[:len(head)-len(empty)]); err != nil {
		return err
	}
	if _, err := io.WriteString(w, "[\n"); err != nil {
		return err
	}
	if _, err := io.Copy(w, cases); err != nil {
		return err
	}
	_, err = io.WriteString(w, "\n  ]\n}\n")
	return err
}

func (s *jsonCases) close() { s.spool.Close() }
