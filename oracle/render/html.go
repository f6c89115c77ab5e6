package render

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/agent-oracle/oracle/internal/spool"
	"github.com/agent-oracle/oracle/oracle/change"
	"github.com/agent-oracle/oracle/oracle/report"
)

// HTML writes the report as one self-contained page (no network, no file
// beside it: styles and the filter script are inline, and its content
// security policy forbids loading anything): what made it (oracle's
// version, the selection, the date and the commit of o.Made), the summary
// counts with the regressions marked at the top, a table of the cases with
// a filter by status, and for each case that needs attention its story
// first (the checks that moved and why, new violations, new tool errors),
// then its diff with the changed words highlighted (old values red, new
// ones green; a value cut short opens to its whole), the changes its
// headline says folded, and its checks. A change several cases share is
// shown once. With o.CaseLink, each case links to its own page.
func HTML(w io.Writer, r *report.Report, o Options) error {
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
	shown         int
	same          sameChanges
	ids           map[*changeGroup]string
	skipped       unlisted
	buf           bytes.Buffer
	distRegressed int // distribution cases labelled regression
}

func newHTMLWriter(o Options) Writer {
	return &htmlWriter{o: o, rows: spool.New(), details: spool.New()}
}

// Case writes the row and the details of c.
func (h *htmlWriter) Case(c *report.Case) error {
	h.distRegressed += distributionRegression(c) // distribution.go

	g, dup := h.same.add(c) // a case not listed still counts in its group
	if c.Status != report.StatusUnchanged {
		if h.o.MaxCases > 0 && h.shown >= h.o.MaxCases {
			h.skipped.add(c)
			return nil
		}
		h.shown++
	}
	h.n++
	hc := htmlCaseOf(h.n, c, h.o)
	if g != nil {
		if h.ids == nil {
			h.ids = map[*changeGroup]string{}
		}
		if dup {
			hc.SameAs, hc.SameAsID, hc.Detail = safe(g.cases[0]), h.ids[g], false
		} else {
			h.ids[g], g.shown = hc.ID, true
		}
	}
	if err := h.part(h.rows, "row", hc); err != nil {
		return err
	}
	return h.part(h.details, "detail", hc)
}

// htmlCaseOf is what the page shows of c, the n-th case.
func htmlCaseOf(n int, c *report.Case, o Options) htmlCase {
	hc := htmlCase{ID: fmt.Sprintf("case-%d", n), Name: safe(c.Case), Status: safe(string(c.Status)), Label: safe(string(c.Label)),
		Note: safe(withRedactedNote(caseNote(c, o.Commands), c)), Verdict: safe(verdictText(c)), Reward: rewardNote(c.OldReward, c.NewReward)}
	if o.CaseLink != nil {
		hc.Link = o.CaseLink(c)
	}
	if c.Status == report.StatusUnchanged {
		return hc
	}
	hc.Detail = true
	if st := c.Story; st != nil {
		for _, ch := range st.Checks {
			segs := checkSegs(ch)
			hcc := htmlCheck{Mark: checkMark(ch), Label: safe(ch.Label), Kind: safe(ch.Kind), What: ch.What(), Class: "failed"}
			if ch.OldKind != "" {
				hcc.Kind = safe(ch.OldKind + " → " + ch.Kind)
			}
			if ch.Now != nil && *ch.Now {
				hcc.Class = "passed"
			}
			if len(segs) > 2 {
				hcc.Detail = htmlSegs(segs[2:])
			}
			hc.Story = append(hc.Story, hcc)
		}
		for _, v := range st.NewViolations {
			hc.NewViolations = append(hc.NewViolations, safe(v))
		}
		hc.GoneViolations = safe(strings.Join(st.GoneViolations, ", "))
	}
	for _, f := range filesOf(c) {
		hc.Files = append(hc.Files, htmlFileOf(f))
	}
	for _, cs := range c.Checks {
		hc.Checks = append(hc.Checks, htmlCheckState{Label: safe(cs.Label), Kind: safe(cs.Kind), Was: cs.Was, Now: cs.Now})
	}
	hc.ToolErrors, hc.OldToolErrors = htmlToolErrors(c.ToolErrors), c.OldToolErrors
	hc.NewToolErrors = htmlToolErrors(c.NewToolErrors)
	if len(c.GoneToolErrors) > 0 {
		hc.GoneToolErrors = safe(goneList(c.GoneToolErrors))
	}
	return hc
}

func htmlToolErrors(tes []change.FailedCall) []htmlToolError {
	var out []htmlToolError
	for _, te := range tes {
		out = append(out, htmlToolError{Call: te.Call, Tool: safe(te.Tool), Code: safe(te.Code), Message: safe(te.Message)})
	}
	return out
}

// htmlViewOf is what the page shows of r but its cases: the program's
// name, what made the report, the summary and the counts.
func htmlViewOf(r *report.Report, o Options) htmlView {
	v := htmlView{Program: o.program(), Summary: safe(SummaryLine(r)), Version: safe(r.Oracle), Date: safe(o.Made.Date),
		Commit: safe(o.Made.Commit), Ref: safe(o.Made.Ref)}
	if s := redactedSummary(r, o); s != "" {
		v.Summary += "; " + safe(s)
	}
	if r.Selection != nil {
		v.Selection = safe(describeSelection(r.Selection))
	}
	s := r.Summary
	v.Counts = []htmlCount{
		{"unchanged", s.Unchanged}, {"changed", s.Changed}, {"missing", s.Missing}, {"obsolete", s.Obsolete},
		{"nondeterministic", s.Nondeterministic}, {"error", s.Error},
	}
	v.Total, v.Regressions, v.Improvements, v.Violations = s.Total, s.Regressions, s.Improvements, s.Violations
	v.RegressionWhat = regressionWhat(s.Regressions, 0)
	return v
}

// describeSelection says what a report is a report of: "--env crm --task
// 'TASK-00?' (8 cases)", or "every case (15 cases)".
func describeSelection(s *report.Selection) string {
	what := s.Flags()
	if what == "" {
		what = "every case"
	}
	return fmt.Sprintf("%s (%d %s)", what, s.Cases, plural(s.Cases, "case", "cases"))
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
func (h *htmlWriter) Finish(w io.Writer, r *report.Report) error {
	rows, err := h.rows.Reader()
	if err != nil {
		return err
	}
	details, err := h.details.Reader()
	if err != nil {
		return err
	}
	v := htmlViewOf(r, h.o)
	v.RegressionWhat = regressionWhat(v.Regressions, h.distRegressed) // distribution.go
	v.Unlisted = safe(h.skipped.line(h.o))
	for _, g := range h.same.shared() {
		v.Groups = append(v.Groups, htmlGroup{ID: h.ids[g], First: safe(g.cases[0]), N: len(g.cases), Others: safe(names(g.cases[1:], mdGroupNames))})
	}
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

func verdictText(c *report.Case) string {
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
	Version, Selection, Date, Commit, Ref        string
	Total, Regressions, Improvements, Violations int
	RegressionWhat                               string
	Counts                                       []htmlCount
	Cases                                        []htmlCase
	Groups                                       []htmlGroup
	Unlisted                                     string
}

type htmlCount struct {
	Status string
	N      int
}

// htmlGroup is a change several cases share: shown with the first.
type htmlGroup struct {
	ID, First, Others string
	N                 int
}

type htmlCase struct {
	ID, Name, Status, Label, Note, Verdict, Reward string
	// Link is the case's own page; SameAs the case (and SameAsID its
	// section) that shows the same change.
	Link, SameAs, SameAsID string
	Detail                 bool
	Story                  []htmlCheck
	NewViolations          []string
	GoneViolations         string
	Files                  []htmlFile
	Checks                 []htmlCheckState
	ToolErrors             []htmlToolError
	OldToolErrors          int
	NewToolErrors          []htmlToolError
	GoneToolErrors         string
}

// htmlCheck is one check of a case's story.
type htmlCheck struct {
	Mark, Label, Kind, What, Class string
	Detail                         template.HTML
}

type htmlCheckState struct {
	Label, Kind string
	Was, Now    *bool
}

type htmlToolError struct {
	Call                int
	Tool, Code, Message string
}

type htmlFile struct {
	Name, State, Error string
	Rows, Folded       []htmlRow
	Invisible          []string
}

// htmlRow is one line of a file's diff: a sign, where, the check or member
// it is about, and the value with its highlighted words.
type htmlRow struct {
	Sign, Where, About, Note string
	Member                   bool
	Value                    template.HTML
}

// htmlSegs writes segments as HTML, each text through safe and escaped:
// deleted words in <del>, inserted ones in <ins>, old and new values and
// elisions in a span of their class, and a value cut short as a
// <details> whose summary is the cut value and whose body the whole.
func htmlSegs(ss []seg) template.HTML {
	var b strings.Builder
	for _, s := range ss {
		text := template.HTMLEscapeString(safe(s.text))
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
		switch {
		case s.full != "":
			b.WriteString(`<details class="cut"><summary class="` + class + `">` + text + `</summary><span class="` + class + `">` +
				template.HTMLEscapeString(safe(s.full)) + `</span></details>`)
		case class == "del" || class == "ins":
			b.WriteString("<" + class + ">" + text + "</" + class + ">")
		case class != "":
			b.WriteString(`<span class="` + class + `">` + text + `</span>`)
		default:
			b.WriteString(text)
		}
	}
	return template.HTML(b.String())
}

func signOf(op change.ChangeOp) string {
	switch op {
	case change.ChangeAdd:
		return "+"
	case change.ChangeRemove:
		return "-"
	}
	return "~"
}

func htmlChangeRow(ch change.Change) htmlRow {
	return htmlRow{Sign: signOf(ch.Op), Where: safe(pathOf(ch)), About: safe(ch.Label), Value: htmlSegs(changeSegs(ch, 0))}
}

func htmlFileOf(f *change.FileDiff) htmlFile {
	hf := htmlFile{Name: safe(f.File), State: safe(string(f.State)), Error: safe(f.Error)}
	for _, ch := range f.Unfolded() {
		hf.Rows = append(hf.Rows, htmlChangeRow(ch))
	}
	for _, ch := range f.Folded() {
		hf.Folded = append(hf.Folded, htmlChangeRow(ch))
	}
	for _, m := range f.Members {
		hf.Rows = append(hf.Rows, htmlRow{Member: true, Sign: memberSign(m), Where: safe(m.Name()), Note: safe(m.What())})
		for _, fd := range m.Fields {
			sign := "~"
			switch {
			case fd.Was == nil:
				sign = "+"
			case fd.Now == nil:
				sign = "-"
			}
			hf.Rows = append(hf.Rows, htmlRow{Sign: sign, Where: safe(fd.Path), Note: fd.What(), Value: htmlSegs(fieldDiffSegs(fd, 0))})
		}
		if m.OldValue != nil {
			hf.Rows = append(hf.Rows, htmlRow{Sign: "-", Value: htmlSegs([]seg{valueSeg(oldValue, m.OldValue, 0)})})
		}
		if m.NewValue != nil {
			hf.Rows = append(hf.Rows, htmlRow{Sign: "+", Value: htmlSegs([]seg{valueSeg(newValue, m.NewValue, 0)})})
		}
		for _, ch := range m.Value {
			hf.Rows = append(hf.Rows, htmlRow{Sign: signOf(ch.Op), Where: safe(pathOf(ch)), Value: htmlSegs(changeSegs(ch, 0))})
		}
	}
	for _, inv := range f.Invisible {
		hf.Invisible = append(hf.Invisible, safe(inv.String()))
	}
	hf.Rows = append(hf.Rows, htmlRedactionRows(f)...)
	return hf
}

// htmlFuncs are the functions of the page's template.
var htmlFuncs = template.FuncMap{
	"passed": passedWord,
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
h1 { font-size: 1.4em; margin-bottom: .2em; } h2 { font-size: 1.15em; margin-top: 2em; } h3 { font-size: 1em; margin: 1em 0 .3em; }
code, .value, .path { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 13px; }
table { border-collapse: collapse; margin: .4em 0; } td, th { border: 1px solid #d0d7de; padding: .25em .6em; text-align: left; vertical-align: top; }
th { background: #f6f8fa; }
#made { color: #57606a; margin-top: 0; }
#alert { background: #ffebe9; border: 1px solid #cf222e; border-radius: 6px; color: #82071e; font-weight: bold; padding: .5em .8em; }
#counts { display: flex; flex-wrap: wrap; gap: 1em; list-style: none; padding: 0; }
#counts li { border: 1px solid #d0d7de; border-radius: 6px; padding: .4em .8em; }
#counts li.alert { border-color: #cf222e; background: #ffebe9; color: #82071e; }
#counts .count { font-weight: bold; font-size: 1.3em; display: block; }
#filters button { margin-right: .4em; padding: .3em .8em; border: 1px solid #d0d7de; border-radius: 6px; background: #fff; cursor: pointer; }
#filters button.active { background: #0969da; color: #fff; border-color: #0969da; }
.status-changed, .status-error, .status-nondeterministic { color: #cf222e; font-weight: bold; }
.status-missing, .status-obsolete { color: #9a6700; font-weight: bold; }
.status-unchanged { color: #1a7f37; }
.badge { border-radius: 1em; padding: 0 .5em; margin-left: .4em; font-size: .85em; color: #fff; }
.badge.regression { background: #cf222e; } .badge.improvement { background: #1a7f37; }
tr.regression td:first-child { border-left: 4px solid #cf222e; }
.label-regression { color: #cf222e; font-weight: bold; } .label-improvement { color: #1a7f37; font-weight: bold; }
.value { white-space: pre-wrap; word-break: break-word; }
del, .old { background: #ffebe9; color: #82071e; } ins, .new { background: #dafbe1; color: #116329; }
del { text-decoration: line-through; } ins { text-decoration: underline; font-weight: bold; }
details.cut { display: inline; } details.cut summary { cursor: pointer; display: inline; } details.cut[open] summary { display: none; }
.elided { color: #8c959f; } .member td { background: #f6f8fa; font-weight: bold; } .note { color: #57606a; }
.failed { color: #cf222e; } .passed { color: #1a7f37; }
.story { border-left: 4px solid #d0d7de; padding-left: .8em; }
[hidden] { display: none !important; }
</style>
</head>
<body>
<h1>{{.Program}} check</h1>
<p id="made">made by {{.Program}}{{if .Version}} {{.Version}}{{end}}{{if .Selection}} from {{.Selection}}{{end}}{{if .Date}} on {{.Date}}{{end}}{{if .Commit}} at commit <code>{{.Commit}}</code>{{end}}{{if .Ref}} ({{.Ref}}){{end}}</p>
{{if .Regressions}}<p id="alert">✗ {{.Regressions}} {{if eq .Regressions 1}}regression{{else}}regressions{{end}}: {{.RegressionWhat}}</p>
{{end}}<p id="summary">{{.Summary}}</p>
<ul id="counts">
<li><span class="count" id="count-total">{{.Total}}</span>cases</li>
<li{{if .Regressions}} class="alert"{{end}}><span class="count" id="count-regressions">{{.Regressions}}</span>regressions</li>
{{range .Counts}}<li class="status-{{.Status}}"><span class="count" id="count-{{.Status}}">{{.N}}</span>{{.Status}}</li>
{{end}}<li><span class="count" id="count-improvements">{{.Improvements}}</span>improvements</li>
<li{{if .Violations}} class="alert"{{end}}><span class="count" id="count-violations">{{.Violations}}</span>violations</li>
</ul>
<div id="filters">
<button type="button" data-filter="attention" class="active">needs attention</button>
<button type="button" data-filter="all">all</button>
{{range .Counts}}{{if .N}}<button type="button" data-filter="{{.Status}}">{{.Status}} ({{.N}})</button>
{{end}}{{end}}</div>
<table id="cases">
<thead><tr><th>case</th><th>status</th><th>verdict</th><th>reward</th><th>note</th></tr></thead>
<tbody>
{{end}}{{define "row"}}<tr class="case{{if .Label}} {{.Label}}{{end}}" data-status="{{.Status}}">
<td><code>{{if .Detail}}<a href="#{{.ID}}">{{.Name}}</a>{{else}}{{.Name}}{{end}}</code>{{if .Link}} <a class="timeline" href="{{.Link}}">timeline</a>{{end}}</td>
<td class="status-{{.Status}}">{{.Status}}{{if .Label}}<span class="badge {{.Label}}">{{.Label}}</span>{{end}}</td>
<td{{if .Label}} class="label-{{.Label}}"{{end}}>{{.Verdict}}</td>
<td>{{.Reward}}</td>
<td class="note">{{.Note}}{{if .SameAs}}; the same change as <a href="#{{.SameAsID}}">{{.SameAs}}</a>{{end}}{{range .Story}}<br><span class="{{.Class}}">{{.Mark}}</span> {{.Label}}: {{.What}}{{end}}</td>
</tr>
{{end}}{{define "mid"}}</tbody>
</table>
{{if .Unlisted}}<p id="unlisted" class="note">{{.Unlisted}}</p>
{{end}}{{range .Groups}}<p class="same-change">the same change in {{.N}} cases: <a href="#{{.ID}}">{{.First}}</a> (shown), {{.Others}}</p>
{{end}}{{end}}{{define "detail"}}{{if .Detail}}
<section class="case-detail" id="{{.ID}}" data-status="{{.Status}}">
<h2><code>{{.Name}}</code> <span class="status-{{.Status}}">{{.Status}}</span>{{if .Label}}<span class="badge {{.Label}}">{{.Label}}</span>{{end}}{{if .Link}} <a class="timeline" href="{{.Link}}">timeline</a>{{end}}</h2>
{{if .Note}}<p class="note{{if .Label}} label-{{.Label}}{{end}}">{{.Note}}</p>{{end}}
{{if .Story}}<div class="story"><h3>checks that moved</h3>
<table class="story-checks"><thead><tr><th></th><th>check</th><th>kind</th><th>outcome</th><th>detail</th></tr></thead><tbody>
{{range .Story}}<tr><td class="{{.Class}}">{{.Mark}}</td><td>{{.Label}}</td><td>{{.Kind}}</td><td class="{{.Class}}">{{.What}}</td><td class="value">{{.Detail}}</td></tr>
{{end}}</tbody></table></div>
{{end}}{{if .NewViolations}}<h3>new violations: {{len .NewViolations}}</h3>
<ul class="violations">{{range .NewViolations}}<li class="failed">{{.}}</li>{{end}}</ul>
{{end}}{{if .GoneViolations}}<p class="violations-gone">violations gone: {{.GoneViolations}}</p>
{{end}}{{if .NewToolErrors}}<h3>new tool errors: {{len .NewToolErrors}} (calls.json against the baseline's)</h3>
<table class="tool-errors"><thead><tr><th>call</th><th>tool</th><th>code</th><th>message</th></tr></thead><tbody>
{{range .NewToolErrors}}<tr><td>#{{.Call}}</td><td><code>{{.Tool}}</code></td><td><code>{{.Code}}</code></td><td class="value">{{.Message}}</td></tr>
{{end}}</tbody></table>
{{end}}{{if .GoneToolErrors}}<p class="tool-errors-gone">tool errors gone: {{.GoneToolErrors}}</p>
{{end}}{{if .ToolErrors}}<h3>tool errors of this run: {{len .ToolErrors}} (the baseline's run had {{.OldToolErrors}}; no calls.json is compared for this case, so which are new is not known)</h3>
<table class="tool-errors"><thead><tr><th>tool</th><th>code</th><th>message</th></tr></thead><tbody>
{{range .ToolErrors}}<tr><td><code>{{.Tool}}</code></td><td><code>{{.Code}}</code></td><td class="value">{{.Message}}</td></tr>
{{end}}</tbody></table>
{{end}}{{range .Files}}<h3><code>{{.Name}}</code>{{if ne .State "changed"}} ({{.State}}){{end}}</h3>
{{if .Error}}<p class="note">{{.Error}}</p>{{end}}
{{if .Rows}}<table class="diff">
{{template "rows" .Rows}}</table>
{{end}}{{if .Folded}}<details class="folded"><summary>{{len .Folded}} {{if eq (len .Folded) 1}}change{{else}}changes{{end}} of {{.Name}} in the headline</summary>
<table class="diff">
{{template "rows" .Folded}}</table>
</details>
{{end}}{{range .Invisible}}<p class="invisible">invisible difference: {{.}}</p>
{{end}}{{end}}{{if .Checks}}<h3>checks</h3>
<table class="checks"><thead><tr><th>check</th><th>kind</th><th>baseline</th><th>now</th></tr></thead><tbody>
{{range .Checks}}<tr><td>{{.Label}}</td><td>{{.Kind}}</td><td class="{{passed .Was}}">{{passed .Was}}</td><td class="{{passed .Now}}">{{passed .Now}}</td></tr>
{{end}}</tbody></table>
{{end}}</section>
{{end}}{{end}}{{define "rows"}}{{range .}}{{if .Member}}<tr class="member"><td>{{.Sign}}</td><td colspan="2">{{.Where}}</td><td class="note">{{.Note}}</td></tr>
{{else}}<tr><td>{{.Sign}}</td><td class="path">{{.Where}}</td><td>{{if .About}}check “{{.About}}”{{end}}{{if .Note}}<span class="note">{{.Note}}</span>{{end}}</td><td class="value">{{.Value}}</td></tr>
{{end}}{{end}}{{end}}{{define "foot"}}
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
