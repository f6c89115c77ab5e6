package render

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/agent-oracle/oracle/internal/spool"
	"github.com/agent-oracle/oracle/oracle"
)

// HTML writes the report as one self-contained page (no network, no file
// beside it: styles and the filter script are inline, and its content
// security policy forbids loading anything): the summary counts, a table of
// the cases with a filter by status, and for each case that needs attention
// its diff with the changed words highlighted, its checks with their labels
// and verdicts, and the tool errors of its fresh run.
func HTML(w io.Writer, r *oracle.Report, o Options) error {
	h := newHTMLWriter(o)
	defer h.Close()
	for _, c := range r.Cases {
		if err := h.Case(c); err != nil {
			return err
		}
	}
	return h.Finish(w, r)
}

// htmlWriter writes the HTML report from its cases one at a time: Case
// writes each case's row of the table to one spool and its details to
// another as the case comes, and Finish, once the counts are known, writes
// the page with the rows and details read back.
type htmlWriter struct {
	o             Options
	rows, details *spool.Spool
	n             int
	buf           bytes.Buffer
}

func newHTMLWriter(o Options) Writer {
	return &htmlWriter{o: o, rows: spool.New(), details: spool.New()}
}

// Case writes the row and the details of c.
func (h *htmlWriter) Case(c *oracle.CaseReport) error {
	h.n++
	hc := htmlCaseOf(h.n, c, h.o.Commands)
	if err := h.part(h.rows, "row", hc); err != nil {
		return err
	}
	return h.part(h.details, "detail", hc)
}

// htmlCaseOf is what the page shows of c, the n-th case.
func htmlCaseOf(n int, c *oracle.CaseReport, cmds Commands) htmlCase {
	hc := htmlCase{ID: fmt.Sprintf("case-%d", n), Name: c.Case, Status: string(c.Status), Label: string(c.Label),
		Note: withRedactedNote(caseNote(c, cmds), c), Verdict: verdictText(c), Reward: rewardNote(c.OldReward, c.NewReward)}
	if c.Status != oracle.StatusUnchanged {
		hc.Detail = true
		for _, f := range filesOf(c) {
			hc.Files = append(hc.Files, htmlFileOf(f))
		}
		hc.Checks = c.Checks
		hc.ToolErrors, hc.OldToolErrors = c.ToolErrors, c.OldToolErrors
		hc.NewToolErrors = c.NewToolErrors
		if len(c.GoneToolErrors) > 0 {
			hc.GoneToolErrors = goneList(c.GoneToolErrors)
		}
	}
	return hc
}

// htmlViewOf is what the page shows of r but its cases: the program's
// name, the summary and the counts.
func htmlViewOf(r *oracle.Report, o Options) htmlView {
	v := htmlView{Program: o.program(), Summary: SummaryLine(r)}
	if s := redactedSummary(r, o); s != "" {
		v.Summary += "; " + s
	}
	s := r.Summary
	v.Counts = []htmlCount{
		{"unchanged", s.Unchanged}, {"changed", s.Changed}, {"missing", s.Missing}, {"obsolete", s.Obsolete},
		{"nondeterministic", s.Nondeterministic}, {"error", s.Error},
	}
	v.Total, v.Regressions, v.Improvements, v.Violations = s.Total, s.Regressions, s.Improvements, s.Violations
	return v
}

// part writes the template name of the page for data to w.
func (h *htmlWriter) part(w io.Writer, name string, data any) error {
	h.buf.Reset()
	if err := htmlPage.ExecuteTemplate(&h.buf, name, data); err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	_, err := w.Write(h.buf.Bytes())
	return err
}

// Finish writes the page of r (whose cases are those Case took) to w, the
// rows and the details read back from their spools.
func (h *htmlWriter) Finish(w io.Writer, r *oracle.Report) error {
	rows, err := h.rows.Reader()
	if err != nil {
		return err
	}
	details, err := h.details.Reader()
	if err != nil {
		return err
	}
	v := htmlViewOf(r, h.o)
	if err := h.part(w, "head", v); err != nil {
		return err
	}
	if _, err := io.Copy(w, rows); err != nil {
		return err
	}
	if err := h.part(w, "mid", v); err != nil {
		return err
	}
	if err := htmlGate(w, r); err != nil { // distribution.go
		return err
	}
	if _, err := io.Copy(w, details); err != nil {
		return err
	}
	return h.part(w, "foot", v)
}

func (h *htmlWriter) Close() {
	h.rows.Close()
	h.details.Close()
}

func verdictText(c *oracle.CaseReport) string {
	switch {
	case c.OldVerdict != "" && c.NewVerdict != "" && c.OldVerdict != c.NewVerdict:
		return string(c.OldVerdict) + " → " + string(c.NewVerdict)
	case c.NewVerdict != "":
		return string(c.NewVerdict)
	}
	return string(c.OldVerdict)
}

type htmlView struct {
	Program, Summary                             string
	Total, Regressions, Improvements, Violations int
	Counts                                       []htmlCount
	Cases                                        []htmlCase
}

type htmlCount struct {
	Status string
	N      int
}

type htmlCase struct {
	ID, Name, Status, Label, Note, Verdict, Reward string
	Detail                                         bool
	Files                                          []htmlFile
	Checks                                         []oracle.CheckState
	ToolErrors                                     []oracle.ToolError
	OldToolErrors                                  int
	NewToolErrors                                  []oracle.ToolError
	GoneToolErrors                                 string
}

type htmlFile struct {
	Name, State, Error string
	Rows               []htmlRow
	Invisible          []string
}

// htmlRow is one line of a file's diff: a sign, where, the check or member
// it is about, and the value with its highlighted words.
type htmlRow struct {
	Sign, Where, About, Note string
	Member                   bool
	Segs                     []htmlSeg
}

type htmlSeg struct {
	Class, Text string
}

func htmlSegs(ss []seg) []htmlSeg {
	var out []htmlSeg
	for _, s := range ss {
		class := ""
		switch s.op {
		case deleted:
			class = "del"
		case inserted:
			class = "ins"
		case oldValue:
			class = "old"
		case newValue:
			class = "new"
		case elided:
			class = "elided"
		}
		out = append(out, htmlSeg{class, s.text})
	}
	return out
}

func signOf(op oracle.ChangeOp) string {
	switch op {
	case oracle.ChangeAdd:
		return "+"
	case oracle.ChangeRemove:
		return "-"
	}
	return "~"
}

func htmlFileOf(f *oracle.FileDiff) htmlFile {
	hf := htmlFile{Name: f.File, State: string(f.State), Error: f.Error}
	for _, ch := range f.Changes {
		hf.Rows = append(hf.Rows, htmlRow{Sign: signOf(ch.Op), Where: pathOf(ch), About: ch.Label, Segs: htmlSegs(changeSegs(ch, 0))})
	}
	for _, m := range f.Members {
		hf.Rows = append(hf.Rows, htmlRow{Member: true, Where: m.Name(), Note: m.What()})
		for _, fd := range m.Fields {
			sign := "~"
			switch {
			case fd.Was == nil:
				sign = "+"
			case fd.Now == nil:
				sign = "-"
			}
			hf.Rows = append(hf.Rows, htmlRow{Sign: sign, Where: fd.Path, Note: fd.What(), Segs: htmlSegs(fieldDiffSegs(fd, 0))})
		}
		if m.OldValue != nil {
			hf.Rows = append(hf.Rows, htmlRow{Sign: "-", Segs: []htmlSeg{{"old", string(m.OldValue)}}})
		}
		if m.NewValue != nil {
			hf.Rows = append(hf.Rows, htmlRow{Sign: "+", Segs: []htmlSeg{{"new", string(m.NewValue)}}})
		}
		for _, ch := range m.Value {
			hf.Rows = append(hf.Rows, htmlRow{Sign: signOf(ch.Op), Where: pathOf(ch), Segs: htmlSegs(changeSegs(ch, 0))})
		}
	}
	for _, inv := range f.Invisible {
		hf.Invisible = append(hf.Invisible, inv.String())
	}
	hf.Rows = append(hf.Rows, htmlRedactionRows(f)...)
	return hf
}

// htmlFuncs are the functions of the page's template.
var htmlFuncs = template.FuncMap{
	"passed": func(b *bool) string {
		switch {
		case b == nil:
			return "—"
		case *b:
			return "passed"
		}
		return "failed"
	},
	"lower": strings.ToLower,
}

// htmlPage is the page in parts: head (to the table's body), a row of the
// table for each case, mid, the details of each case that needs attention,
// and foot.
var htmlPage = template.Must(template.New("report").Funcs(htmlFuncs).Parse(`{{define "head"}}<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Program}} check: {{.Summary}}</title>
<style>
body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5em; color: #1f2328; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 2em; } h3 { font-size: 1em; margin: 1em 0 .3em; }
code, .value, .path { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 13px; }
table { border-collapse: collapse; margin: .4em 0; } td, th { border: 1px solid #d0d7de; padding: .25em .6em; text-align: left; vertical-align: top; }
th { background: #f6f8fa; }
#counts { display: flex; gap: 1em; list-style: none; padding: 0; }
#counts li { border: 1px solid #d0d7de; border-radius: 6px; padding: .4em .8em; }
#counts .count { font-weight: bold; font-size: 1.3em; display: block; }
#filters button { margin-right: .4em; padding: .3em .8em; border: 1px solid #d0d7de; border-radius: 6px; background: #fff; cursor: pointer; }
#filters button.active { background: #0969da; color: #fff; border-color: #0969da; }
.status-changed, .status-error, .status-nondeterministic { color: #cf222e; font-weight: bold; }
.status-missing, .status-obsolete { color: #9a6700; font-weight: bold; }
.status-unchanged { color: #1a7f37; }
.label-regression { color: #cf222e; font-weight: bold; } .label-improvement { color: #1a7f37; font-weight: bold; }
.value { white-space: pre-wrap; word-break: break-word; }
del, .old { background: #ffebe9; color: #82071e; } ins, .new { background: #dafbe1; color: #116329; }
del { text-decoration: line-through; } ins { text-decoration: none; font-weight: bold; }
.elided { color: #8c959f; } .member td { background: #f6f8fa; font-weight: bold; } .note { color: #57606a; }
.failed { color: #cf222e; } .passed { color: #1a7f37; }
[hidden] { display: none !important; }
</style>
</head>
<body>
<h1>{{.Program}} check</h1>
<p id="summary">{{.Summary}}</p>
<ul id="counts">
<li><span class="count" id="count-total">{{.Total}}</span>cases</li>
{{range .Counts}}<li class="status-{{.Status}}"><span class="count" id="count-{{.Status}}">{{.N}}</span>{{.Status}}</li>
{{end}}<li><span class="count" id="count-regressions">{{.Regressions}}</span>regressions</li>
<li><span class="count" id="count-improvements">{{.Improvements}}</span>improvements</li>
<li><span class="count" id="count-violations">{{.Violations}}</span>violations</li>
</ul>
<div id="filters">
<button type="button" data-filter="attention" class="active">needs attention</button>
<button type="button" data-filter="all">all</button>
{{range .Counts}}{{if .N}}<button type="button" data-filter="{{.Status}}">{{.Status}} ({{.N}})</button>
{{end}}{{end}}</div>
<table id="cases">
<thead><tr><th>case</th><th>status</th><th>verdict</th><th>reward</th><th>note</th></tr></thead>
<tbody>
{{end}}{{define "row"}}<tr class="case" data-status="{{.Status}}">
<td><code>{{if .Detail}}<a href="#{{.ID}}">{{.Name}}</a>{{else}}{{.Name}}{{end}}</code></td>
<td class="status-{{.Status}}">{{.Status}}</td>
<td{{if .Label}} class="label-{{.Label}}"{{end}}>{{.Verdict}}</td>
<td>{{.Reward}}</td>
<td class="note">{{.Note}}</td>
</tr>
{{end}}{{define "mid"}}</tbody>
</table>
{{end}}{{define "detail"}}{{if .Detail}}
<section class="case-detail" id="{{.ID}}" data-status="{{.Status}}">
<h2><code>{{.Name}}</code> <span class="status-{{.Status}}">{{.Status}}</span></h2>
{{if .Note}}<p class="note{{if .Label}} label-{{.Label}}{{end}}">{{.Note}}</p>{{end}}
{{range .Files}}<h3><code>{{.Name}}</code>{{if ne .State "changed"}} ({{.State}}){{end}}</h3>
{{if .Error}}<p class="note">{{.Error}}</p>{{end}}
{{if .Rows}}<table class="diff">
{{range .Rows}}{{if .Member}}<tr class="member"><td colspan="3">{{.Where}}</td><td class="note">{{.Note}}</td></tr>
{{else}}<tr><td>{{.Sign}}</td><td class="path">{{.Where}}</td><td>{{if .About}}check “{{.About}}”{{end}}{{if .Note}}<span class="note">{{.Note}}</span>{{end}}</td><td class="value">{{range .Segs}}{{if eq .Class "del"}}<del>{{.Text}}</del>{{else if eq .Class "ins"}}<ins>{{.Text}}</ins>{{else if .Class}}<span class="{{.Class}}">{{.Text}}</span>{{else}}{{.Text}}{{end}}{{end}}</td></tr>
{{end}}{{end}}</table>
{{end}}{{range .Invisible}}<p class="invisible">invisible difference: {{.}}</p>
{{end}}{{end}}{{if .Checks}}<h3>checks</h3>
<table class="checks"><thead><tr><th>check</th><th>kind</th><th>baseline</th><th>now</th></tr></thead><tbody>
{{range .Checks}}<tr><td>{{.Label}}</td><td>{{.Kind}}</td><td class="{{passed .Was}}">{{passed .Was}}</td><td class="{{passed .Now}}">{{passed .Now}}</td></tr>
{{end}}</tbody></table>
{{end}}{{if .NewToolErrors}}<h3>new tool errors: {{len .NewToolErrors}} (calls.json against the baseline's)</h3>
<table class="tool-errors"><thead><tr><th>call</th><th>tool</th><th>code</th><th>message</th></tr></thead><tbody>
{{range .NewToolErrors}}<tr><td>#{{.Call}}</td><td><code>{{.Tool}}</code></td><td><code>{{.Code}}</code></td><td>{{.Message}}</td></tr>
{{end}}</tbody></table>
{{end}}{{if .GoneToolErrors}}<p class="tool-errors-gone">tool errors gone: {{.GoneToolErrors}}</p>
{{end}}{{if .ToolErrors}}<h3>tool errors of this run: {{len .ToolErrors}} (the baseline's run had {{.OldToolErrors}}; no calls.json is compared for this case, so which are new is not known)</h3>
<table class="tool-errors"><thead><tr><th>tool</th><th>code</th><th>message</th></tr></thead><tbody>
{{range .ToolErrors}}<tr><td><code>{{.Tool}}</code></td><td><code>{{.Code}}</code></td><td>{{.Message}}</td></tr>
{{end}}</tbody></table>
{{end}}</section>
{{end}}{{end}}{{define "foot"}}
<script>
(function () {
  var buttons = document.querySelectorAll('#filters button');
  function show(filter) {
    document.querySelectorAll('[data-status]').forEach(function (el) {
      var s = el.getAttribute('data-status');
      el.hidden = !(filter === 'all' || s === filter || (filter === 'attention' && s !== 'unchanged'));
    });
    buttons.forEach(function (b) { b.classList.toggle('active', b.getAttribute('data-filter') === filter); });
  }
  buttons.forEach(function (b) { b.addEventListener('click', function () { show(b.getAttribute('data-filter')); }); });
  show('attention');
})();
</script>
</body>
</html>
{{end}}`))
