package render

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/agent-oracle/oracle/oracle/report"
)

// Writer writes one report from its cases as they end, so that a check of
// any number of cases holds no whole report: it keeps of each case only
// what its format shows, out of memory in a spool where that can be much.
type Writer interface {
	// Case takes the report of the next case; the cases come in key order.
	Case(cr *report.Case) error
	// Finish writes the whole report to w once every case is in. r is the
	// check's report without its cases (its summary, selection and shard),
	// which Finish does not change.
	Finish(w io.Writer, r *report.Report) error
	// Close drops what the writer kept.
	Close()
}

// Format is one report format: the name --format gives it, the file it is
// written to in a report folder, New, which starts a report written from
// the cases as they end, and Write, which writes a whole report at once.
// The two give the same bytes.
type Format struct {
	Name  string
	File  string
	New   func(o Options) Writer
	Write func(w io.Writer, r *report.Report, o Options) error
}

// formats are the report formats, in the order help lists them. A new
// format is one file of this package and one row here.
var formats = []Format{
	{Name: "text", File: "report.txt", New: newTextWriter, Write: Text},
	{Name: "json", File: "report.json", New: newJSONWriter, Write: JSON},
	{Name: "markdown", File: "report.md", New: newMarkdownWriter, Write: Markdown},
	{Name: "junit", File: "report.xml", New: newJUnitWriter, Write: JUnit},
	{Name: "html", File: "index.html", New: newHTMLWriter, Write: HTML},
}

// Formats returns the report formats, in the order help lists them.
func Formats() []Format { return slices.Clone(formats) }

// Lookup returns the format called name. An unknown name is an error that
// lists the formats.
func Lookup(name string) (Format, error) {
	for _, f := range formats {
		if f.Name == name {
			return f, nil
		}
	}
	return Format{}, fmt.Errorf("%q is not %s", name, FormatList())
}

// FormatList names the formats for help and errors: "text, json, markdown,
// junit or html".
func FormatList() string {
	names := make([]string, len(formats))
	for i, f := range formats {
		names[i] = f.Name
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// Files returns the file names of the formats in a report folder.
func Files() []string {
	files := make([]string, len(formats))
	for i, f := range formats {
		files[i] = f.File
	}
	return files
}

// withCases returns a copy of r with cases.
func withCases(r *report.Report, cases []*report.Case) *report.Report {
	c := *r
	c.Cases = cases
	return &c
}
