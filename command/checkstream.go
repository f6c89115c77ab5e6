package command

import (
	"bytes"
	"fmt"
	"io"
	"net/url"
	"path"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/oracle"
	"github.com/agent-oracle/oracle/oracle/render"
	"github.com/agent-oracle/oracle/oracle/render/timeline"
	"github.com/agent-oracle/oracle/oracle/report"
	"github.com/urfave/cli/v2"
)

// A check report is written from the cases as they end, by the writer of
// its format (render.Writer), which keeps of each case only what its format
// shows, so that a check of any number of cases holds no whole report.
// --report-dir writes every format of render.Formats the same way, and the
// fresh artifacts of the cases that did not match wait in a spool until the
// folder is written (oracle.ReportDir); --pending keeps each case's fresh
// artifacts as the case comes.

// checkStreamed checks the selected cases (or takes the merged report's),
// writes the report folder when --report-dir names one, then prints the
// report in format.
func checkStreamed(c *cli.Context, opts *checkOptions, format render.Format, run func(each func(cr *report.Case, kept *oracle.Kept) error) (*report.Report, int, error)) error {
	out := format.New(reportOptions(c, opts, c.App.Writer))
	defer out.Close()
	writers := []render.Writer{out}
	var dir *oracle.ReportDir
	files := map[string]render.Writer{}
	if name := opts.ReportDir; name != "" {
		var err error
		if dir, err = oracle.OpenReportDir(name, render.Files()); err != nil {
			return err
		}
		defer dir.Close()
		dir.SetPages(casePage(c))
		o := reportOptions(c, opts, nil)
		o.CaseLink = func(cr *report.Case) string {
			if !dir.Kept(cr.Key()) {
				return ""
			}
			return casePageLink(cr.Key())
		}
		for _, f := range render.Formats() {
			w := f.New(o)
			defer w.Close()
			files[f.File] = w
			writers = append(writers, w)
		}
	}
	rep, code, err := run(func(cr *report.Case, kept *oracle.Kept) error {
		if dir != nil {
			// first, so that the report folder's index links the case's
			// page when its fresh artifacts are kept
			if err := dir.Add(cr.Unshown(), kept); err != nil {
				return err
			}
		}
		for i, w := range writers {
			if i > 0 {
				cr = cr.Unshown() // the files of the report folder
			}
			if err := w.Case(cr); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if dir != nil {
		reports := map[string]func(io.Writer) error{}
		for file, w := range files {
			reports[file] = func(out io.Writer) error { return w.Finish(out, rep) }
		}
		if err := dir.Finish(reports); err != nil {
			return err
		}
	}
	if err := out.Finish(c.App.Writer, rep); err != nil {
		return err
	}
	return exitWith(code)
}

// checkEach checks the selected cases and hands each case's report to
// each, in key order; with --pending it keeps each case's fresh artifacts
// in .silo/pending as it comes. It prints the errors of the cases that
// failed to run, and returns the report without its cases (the summary is
// whole) and the exit code the cases give.
func checkEach(c *cli.Context, o *checkOptions, store *baseline.Store, selected *oracle.Selected, sel oracle.Selection, opts oracle.Options, each func(cr *report.Case, kept *oracle.Kept) error) (*report.Report, int, error) {
	var pending *pendingWriter
	if o.Pending {
		var err error
		if pending, err = newPendingWriter(c, o.cases.Task.Value()); err != nil {
			return nil, 0, err
		}
	}
	code := ExitOK
	var errs []string
	rep, err := oracle.CheckEach(c.Context, store, selected.Cases, sel, opts, func(cr *report.Case, kept *oracle.Kept) error {
		code = max(code, checkExits[cr.Status])
		if cr.Status == report.StatusError {
			errs = append(errs, fmt.Sprintf("error: %s: %s\n", safe(cr.Case), safe(cr.Error)))
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
	rep.Oracle, rep.Selection.Cases, rep.Commit = Version, selected.Total, sourceCommit()
	if pending != nil {
		pending.done()
	}
	for _, e := range errs {
		io.WriteString(c.App.ErrWriter, e)
	}
	return rep, max(code, printGate(c.App.ErrWriter, c.App.Name, rep.Gate)), nil
}

// mergedCases hands the cases of a merged report on, as checkEach hands
// those of a check, and returns the report without them.
func mergedCases(c *cli.Context, o *checkOptions, r *report.Report, each func(cr *report.Case, kept *oracle.Kept) error) (*report.Report, int, error) {
	for _, cr := range r.Cases {
		if cr.Status == report.StatusError {
			fmt.Fprintf(c.App.ErrWriter, "error: %s: %s\n", safe(cr.Case), safe(cr.Error))
		}
		if !o.ShowRedacted {
			cr = cr.Unshown()
		}
		if err := each(cr, nil); err != nil {
			return nil, 0, err
		}
	}
	head := *r
	head.Cases = nil
	return &head, max(checkExit(r), printGate(c.App.ErrWriter, c.App.Name, r.Gate)), nil
}

// exitWith is the error of a check that exits with code.
func exitWith(code int) error {
	if code != ExitOK {
		return exitCode(code)
	}
	return nil
}

// casePage makes the timeline page of a case of the report folder from the
// fresh artifacts the folder holds, as oracle view makes it.
func casePage(c *cli.Context) func(k baseline.Key, prefix string) ([]byte, error) {
	return func(_ baseline.Key, prefix string) ([]byte, error) {
		src, err := timeline.Locate(prefix, "")
		if err != nil {
			return nil, err
		}
		rollout, err := timeline.Load(src)
		if err != nil {
			return nil, err
		}
		var page bytes.Buffer
		if err := timeline.Write(&page, rollout, timeline.Options{Program: c.App.Name + " " + c.App.Version}); err != nil {
			return nil, err
		}
		return page.Bytes(), nil
	}
}

// casePageLink is the link from the report folder's index.html to the page
// of the case k: fresh/<env>/<agent>/<TASK>.view.html.
func casePageLink(k baseline.Key) string {
	return path.Join(oracle.FreshDir, url.PathEscape(k.Env), url.PathEscape(k.Agent), url.PathEscape(k.Task)+oracle.CasePageSuffix)
}
