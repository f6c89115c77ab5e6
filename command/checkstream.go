package command

import (
	"bytes"
	"fmt"
	"io"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/internal/spool"
	"github.com/agent-oracle/oracle/oracle"
	"github.com/agent-oracle/oracle/oracle/render"
	"github.com/urfave/cli/v2"
)

// A check report is written from the cases as they end, keeping of each
// only what its format shows, so that a check of any number of cases holds
// no whole report: the text report spools the cases it lists, the
// Markdown report keeps the cases that need attention, the JSON, JUnit and
// HTML reports spool what they write of each case (checkjson.go,
// render.JUnitStream, render.HTMLStream). Their output is writeReport's,
// byte for byte. --report-dir writes every format the same way, and the
// fresh artifacts of the cases that did not match wait in a spool until
// the folder is written (oracle.ReportDir); --pending keeps each case's
// fresh artifacts as the case comes.

// caseReport is one check report written from the cases as they end.
type caseReport interface {
	// add takes the report of the next case.
	add(cr *oracle.CaseReport) error
	// write writes the whole report to w; rep is the check's report
	// without its cases, which write does not change.
	write(w io.Writer, rep *oracle.Report) error
	// close drops what the report holds.
	close()
}

// newCaseReport returns the report of format; text reports are written
// with o.
func newCaseReport(c *cli.Context, format string, o render.TextOptions) caseReport {
	switch format {
	case "json":
		return &jsonCases{spool: spool.New()}
	case "markdown":
		return &markdownReport{c: c}
	case "junit":
		return newJUnitReport(c)
	case "html":
		return newHTMLReport(c)
	}
	return &textReport{c: c, o: o, spool: spool.New()}
}

// checkStreamed checks the selected cases (or takes the merged report's),
// writes the report folder when --report-dir names one, then prints the
// report in format.
func checkStreamed(c *cli.Context, format string, run func(each func(cr *oracle.CaseReport, kept *oracle.Kept) error) (*oracle.Report, int, error)) error {
	out := newCaseReport(c, format, textOptions(c, c.App.Writer))
	defer out.close()
	reports := []caseReport{out}
	var dir *oracle.ReportDir
	var files map[string]caseReport
	if name := c.String("report-dir"); name != "" {
		var err error
		if dir, err = oracle.OpenReportDir(name); err != nil {
			return err
		}
		defer dir.Close()
		o := render.TextOptions{All: true, MaxValue: 1000, Commands: reportCommands(c)}
		files = map[string]caseReport{}
		for file, format := range reportDirFiles {
			files[file] = newCaseReport(c, format, o)
			defer files[file].close()
			reports = append(reports, files[file])
		}
	}
	rep, code, err := run(func(cr *oracle.CaseReport, kept *oracle.Kept) error {
		for _, r := range reports {
			if err := r.add(cr); err != nil {
				return err
			}
		}
		if dir != nil {
			return dir.Add(cr, kept)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if dir != nil {
		writers := map[string]func(io.Writer) error{}
		for file, r := range files {
			writers[file] = func(w io.Writer) error { return r.write(w, rep) }
		}
		if err := dir.Finish(writers); err != nil {
			return err
		}
	}
	if err := out.write(c.App.Writer, rep); err != nil {
		return err
	}
	return exitWith(code)
}

// reportDirFiles are the reports of a report folder, by file name.
var reportDirFiles = map[string]string{
	"report.txt": "text", "report.md": "markdown", "report.json": "json", "report.xml": "junit", "index.html": "html",
}

// checkEach checks the selected cases and hands each case's report to
// each, in key order; with --pending it keeps each case's fresh artifacts
// in .silo/pending as it comes. It prints the errors of the cases that
// failed to run, and returns the report without its cases (the summary is
// whole) and the exit code the cases give.
func checkEach(c *cli.Context, store *baseline.Store, selected *oracle.Selected, sel oracle.Selection, opts oracle.Options, each func(cr *oracle.CaseReport, kept *oracle.Kept) error) (*oracle.Report, int, error) {
	var pending *pendingWriter
	if c.Bool("pending") {
		var err error
		if pending, err = newPendingWriter(c); err != nil {
			return nil, 0, err
		}
	}
	code := ExitOK
	var errs []string
	rep, err := oracle.CheckEach(c.Context, store, selected.Cases, sel, opts, func(cr *oracle.CaseReport, kept *oracle.Kept) error {
		code = max(code, checkExits[cr.Status])
		if cr.Status == oracle.StatusError {
			errs = append(errs, fmt.Sprintf("error: %s: %s\n", cr.Case, named(c, cr.Error)))
		}
		if pending != nil {
			if err := pending.add(cr, kept); err != nil {
				return err
			}
		}
		return each(cr, kept)
	})
	if err != nil {
		return nil, 0, err
	}
	rep.Oracle, rep.Selection.Cases = Version, selected.Total
	if pending != nil {
		pending.done()
	}
	for _, e := range errs {
		io.WriteString(c.App.ErrWriter, e)
	}
	return rep, code, nil
}

// mergedCases hands the cases of a merged report on, as checkEach hands
// those of a check, and returns the report without them.
func mergedCases(c *cli.Context, r *oracle.Report, each func(cr *oracle.CaseReport, kept *oracle.Kept) error) (*oracle.Report, int, error) {
	for _, cr := range r.Cases {
		if cr.Status == oracle.StatusError {
			fmt.Fprintf(c.App.ErrWriter, "error: %s: %s\n", cr.Case, named(c, cr.Error))
		}
		if err := each(cr, nil); err != nil {
			return nil, 0, err
		}
	}
	return withCases(r, nil), checkExit(r), nil
}

// exitWith is the error of a check that exits with code.
func exitWith(code int) error {
	if code != ExitOK {
		return exitCode(code)
	}
	return nil
}

// withCases returns a copy of rep with cases.
func withCases(rep *oracle.Report, cases []*oracle.CaseReport) *oracle.Report {
	r := *rep
	r.Cases = cases
	return &r
}

// textReport spools the cases the text report lists.
type textReport struct {
	c      *cli.Context
	o      render.TextOptions
	spool  *spool.Spool
	listed bool
	buf    bytes.Buffer
}

func (t *textReport) add(cr *oracle.CaseReport) error {
	t.buf.Reset()
	if !render.TextCase(&t.buf, cr, t.o) {
		return nil
	}
	t.listed = true
	_, err := io.WriteString(t.spool, named(t.c, t.buf.String()))
	return err
}

func (t *textReport) write(w io.Writer, rep *oracle.Report) error {
	cases, err := t.spool.Reader()
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, cases); err != nil {
		return err
	}
	t.buf.Reset()
	if err := render.TextSummary(&t.buf, rep, t.o, t.listed); err != nil {
		return err
	}
	_, err = io.WriteString(w, named(t.c, t.buf.String()))
	return err
}

func (t *textReport) close() { t.spool.Close() }

// markdownReport keeps the cases that need attention, which are the ones
// the Markdown report lists.
type markdownReport struct {
	c         *cli.Context
	attention []*oracle.CaseReport
}

func (m *markdownReport) add(cr *oracle.CaseReport) error {
	if cr.Status != oracle.StatusUnchanged {
		m.attention = append(m.attention, cr)
	}
	return nil
}

func (m *markdownReport) write(w io.Writer, rep *oracle.Report) error {
	return writeReport(m.c, w, "markdown", withCases(rep, m.attention))
}

func (m *markdownReport) close() {}

// junitReport spools the test case elements until the suites' counts are
// known.
type junitReport struct {
	spool *spool.Spool
	j     *render.JUnitStream
}

func newJUnitReport(c *cli.Context) *junitReport {
	sp := spool.New()
	j := render.NewJUnitStream(sp, reportCommands(c))
	// the commands the report names are this binary's, as writeReport
	// names them
	j.Name = named(c, j.Name)
	j.Rewrite = func(s string) string { return named(c, s) }
	return &junitReport{spool: sp, j: j}
}

func (r *junitReport) add(cr *oracle.CaseReport) error { return r.j.Add(cr) }

func (r *junitReport) write(w io.Writer, _ *oracle.Report) error {
	elements, err := r.spool.Reader()
	if err != nil {
		return err
	}
	return r.j.Finish(w, elements)
}

func (r *junitReport) close() { r.spool.Close() }

// htmlReport spools the table rows and the case details until the counts
// are known.
type htmlReport struct {
	rows, details *spool.Spool
	h             *render.HTMLStream
}

func newHTMLReport(c *cli.Context) *htmlReport {
	rows, details := spool.New(), spool.New()
	h := render.NewHTMLStream(rows, details, reportCommands(c))
	h.Rewrite = func(s string) string { return named(c, s) }
	return &htmlReport{rows: rows, details: details, h: h}
}

func (r *htmlReport) add(cr *oracle.CaseReport) error { return r.h.Add(cr) }

func (r *htmlReport) write(w io.Writer, rep *oracle.Report) error {
	rows, err := r.rows.Reader()
	if err != nil {
		return err
	}
	details, err := r.details.Reader()
	if err != nil {
		return err
	}
	return r.h.Finish(w, rep, rows, details)
}

func (r *htmlReport) close() {
	r.rows.Close()
	r.details.Close()
}
