package render

import (
	"bytes"
	"fmt"
	"io"

	"github.com/agent-oracle/oracle/internal/canon"
	"github.com/agent-oracle/oracle/internal/spool"
	"github.com/agent-oracle/oracle/oracle/report"
)

// JSON writes the report as canonical JSON (sorted keys, two-space indent,
// a final newline): the form oracle.ParseReport reads back, so that the
// reports of shards can be merged. Its bytes depend on nothing but the
// report: two checks of the same cases give the same file. Characters a
// terminal or a CI log would act on are written as \uXXXX escapes
// (canon.VisibleJSON): the same strings, to any JSON reader.
func JSON(w io.Writer, r *report.Report, _ Options) error {
	b, err := canon.Marshal(r)
	if err != nil {
		return err
	}
	_, err = w.Write(canon.VisibleJSON(b))
	return err
}

// jsonWriter spools the JSON of a report's cases, as they appear in its
// "cases" array, until the report's head (its summary) is known.
type jsonWriter struct {
	spool   *spool.Spool
	n       int
	scratch []byte
}

func newJSONWriter(Options) Writer { return &jsonWriter{spool: spool.New()} }

// Case appends the JSON of one case.
func (s *jsonWriter) Case(cr *report.Case) error {
	compact, err := canon.Compact(cr)
	if err != nil {
		return err
	}
	s.scratch = s.scratch[:0]
	if s.n > 0 {
		s.scratch = append(s.scratch, ",\n"...)
	}
	s.scratch = append(s.scratch, "    "...)
	if s.scratch, err = canon.AppendIndent(s.scratch, canon.VisibleJSON(compact), "    ", "  "); err != nil {
		return err
	}
	s.n++
	_, err = s.spool.Write(s.scratch)
	return err
}

// Finish writes r with the cases added, as JSON writes the whole report.
func (s *jsonWriter) Finish(w io.Writer, r *report.Report) error {
	head, err := canon.Marshal(withCases(r, []*report.Case{}))
	if err != nil {
		return err
	}
	head = canon.VisibleJSON(head)
	const empty = "[]\n}\n" // the cases, last in the report, and its end
	if !bytes.HasSuffix(head, []byte(empty)) {
		return fmt.Errorf("json report: its cases are not last (%q)", head[max(0, len(head)-20):])
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

func (s *jsonWriter) Close() { s.spool.Close() }
