package command

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/internal/canon"
	"github.com/agent-oracle/oracle/oracle"
	"github.com/urfave/cli/v2"
)

// checkJSON prints the JSON report, keeping of each case only its JSON, in
// a reportSpool.
func checkJSON(c *cli.Context, store *baseline.Store, selected *oracle.Selected, sel oracle.Selection, opts oracle.Options) error {
	spool := newReportSpool()
	defer spool.close()
	rep, code, err := checkEach(c, store, selected, sel, opts, spool.add)
	if err != nil {
		return err
	}
	if err := spool.writeReport(c.App.Writer, rep); err != nil {
		return err
	}
	return exitWith(code)
}

// reportSpool holds the JSON of a report's cases, as they appear in its
// "cases" array, until the report's summary is known: in a temporary file,
// removed from its folder at once where the system allows it (so nothing
// is left behind, even by a killed check), or in memory when no temporary
// file can be made.
type reportSpool struct {
	file    *os.File
	w       *bufio.Writer
	mem     bytes.Buffer
	n       int
	scratch []byte
}

func newReportSpool() *reportSpool {
	s := &reportSpool{}
	f, err := os.CreateTemp("", "oracle-report-*.json")
	if err != nil {
		s.w = bufio.NewWriter(&s.mem)
		return s
	}
	os.Remove(f.Name()) // where an open file cannot be removed (Windows), close removes it
	s.file, s.w = f, bufio.NewWriterSize(f, 64<<10)
	return s
}

// add appends the JSON of one case.
func (s *reportSpool) add(cr *oracle.CaseReport) error {
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
	_, err = s.w.Write(s.scratch)
	return err
}

// writeReport writes rep, whose Cases are empty, with the cases added, as
// writeJSON writes the whole report.
func (s *reportSpool) writeReport(w io.Writer, rep *oracle.Report) error {
	rep.Cases = []*oracle.CaseReport{}
	head, err := canon.Marshal(rep)
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
	if err := s.w.Flush(); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	var cases io.Reader = &s.mem
	if s.file != nil {
		if _, err := s.file.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("report: %w", err)
		}
		cases = s.file
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

func (s *reportSpool) close() {
	if s.file != nil {
		s.file.Close()
		os.Remove(s.file.Name())
	}
}
