package command

import (
	"bytes"
	"fmt"
	"io"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/oracle"
	"github.com/agent-oracle/oracle/render"
	"github.com/urfave/cli/v2"
)

// A check report is written from the cases as they end, keeping of each
// only what its format shows, so that a check of any number of cases holds
// no whole report: the text and Markdown reports keep the cases that need
// attention (every case with --verbose for text), the JSON, JUnit and HTML
// reports spool what they write of each case (checkjson.go,
// render.JUnitStream, render.HTMLStream). Their output is writeReport's,
// byte for byte; --pending keeps each case's fresh artifacts as the case
// comes. --report-dir takes the whole report (oracle.Check).

// streamedReports write the check report of each format from the cases as
// they end.
var streamedReports = map[string]func(c *cli.Context, store *baseline.Store, selected *oracle.Selected, sel oracle.Selection, opts oracle.Options) error{
	"text": checkText, "markdown": checkMarkdown, "json": checkJSON, "junit": checkJUnit, "html": checkHTML,
}

// checkEach checks the selected cases and hands each case's report to
// keep, in key order; with --pending it keeps each case's fresh artifacts
// in .silo/pending as it comes. It prints the errors of the cases that
// failed to run, and returns the report without its cases (the summary is
// whole) and the exit code the cases give.
func checkEach(c *cli.Context, store *baseline.Store, selected *oracle.Selected, sel oracle.Selection, opts oracle.Options, keep func(cr *oracle.CaseReport) error) (*oracle.Report, int, error) {
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
		return keep(cr)
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

// exitWith is the error of a check that exits with code.
func exitWith(code int) error {
	if code != ExitOK {
		return exitCode(code)
	}
	return nil
}

// checkText prints the text report.
func checkText(c *cli.Context, store *baseline.Store, selected *oracle.Selected, sel oracle.Selection, opts oracle.Options) error {
	var buf bytes.Buffer
	o := textOptions(c, c.App.Writer)
	listed := false
	rep, code, err := checkEach(c, store, selected, sel, opts, func(cr *oracle.CaseReport) error {
		listed = render.TextCase(&buf, cr, o) || listed
		return nil
	})
	if err != nil {
		return err
	}
	if err := render.TextSummary(&buf, rep, o, listed); err != nil {
		return err
	}
	if _, err := io.WriteString(c.App.Writer, named(c, buf.String())); err != nil {
		return err
	}
	return exitWith(code)
}

// checkMarkdown prints the Markdown report, which lists the cases that
// need attention.
func checkMarkdown(c *cli.Context, store *baseline.Store, selected *oracle.Selected, sel oracle.Selection, opts oracle.Options) error {
	var attention []*oracle.CaseReport
	rep, code, err := checkEach(c, store, selected, sel, opts, func(cr *oracle.CaseReport) error {
		if cr.Status != oracle.StatusUnchanged {
			attention = append(attention, cr)
		}
		return nil
	})
	if err != nil {
		return err
	}
	rep.Cases = attention
	if err := writeReport(c, c.App.Writer, "markdown", rep); err != nil {
		return err
	}
	return exitWith(code)
}

// checkJUnit prints the JUnit report, whose test case elements wait in a
// spool until the suites' counts are known.
func checkJUnit(c *cli.Context, store *baseline.Store, selected *oracle.Selected, sel oracle.Selection, opts oracle.Options) error {
	sp := newSpool()
	defer sp.close()
	j := render.NewJUnitStream(sp, reportCommands(c))
	// the commands the report names are this binary's, as writeReport
	// names them
	j.Name = named(c, j.Name)
	j.Rewrite = func(s string) string { return named(c, s) }
	_, code, err := checkEach(c, store, selected, sel, opts, j.Add)
	if err != nil {
		return err
	}
	elements, err := sp.reader()
	if err != nil {
		return err
	}
	if err := j.Finish(c.App.Writer, elements); err != nil {
		return err
	}
	return exitWith(code)
}

// checkHTML prints the HTML page, whose table rows and case details wait in
// two spools until the counts are known.
func checkHTML(c *cli.Context, store *baseline.Store, selected *oracle.Selected, sel oracle.Selection, opts oracle.Options) error {
	rows, details := newSpool(), newSpool()
	defer rows.close()
	defer details.close()
	h := render.NewHTMLStream(rows, details, reportCommands(c))
	h.Rewrite = func(s string) string { return named(c, s) }
	rep, code, err := checkEach(c, store, selected, sel, opts, h.Add)
	if err != nil {
		return err
	}
	r, err := rows.reader()
	if err != nil {
		return err
	}
	d, err := details.reader()
	if err != nil {
		return err
	}
	if err := h.Finish(c.App.Writer, rep, r, d); err != nil {
		return err
	}
	return exitWith(code)
}
