package command

import (
	"bytes"
	"fmt"
	"io"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/internal/canon"
	"github.com/agent-oracle/oracle/oracle"
	"github.com/urfave/cli/v2"
)

// checkJSON prints the JSON report, keeping of each case only its JSON, in
// a spool.
func checkJSON(c *cli.Context, store *baseline.Store, selected *oracle.Selected, sel oracle.Selection, opts oracle.Options) error {
	cases := &jsonCases{spool: newSpool()}
	defer cases.spool.close()
	rep, code, err := checkEach(c, store, selected, sel, opts, cases.add)
	if err != nil {
		return err
	}
	if err := cases.writeReport(c.App.Writer, rep); err != nil {
		return err
	}
	return exitWith(code)
}

// jsonCases spools the JSON of a report's cases, as they appear in its
// "cases" array.
type jsonCases struct {
	spool   *spool
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

// writeReport writes rep, whose Cases are empty, with the cases added, as
// writeJSON writes the whole report.
func (s *jsonCases) writeReport(w io.Writer, rep *oracle.Report) error {
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
	cases, err := s.spool.reader()
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
