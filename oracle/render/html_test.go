package render

import (
	"bytes"
	"html/template"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/internal/browsertest"
	"github.com/agent-oracle/oracle/oracle/change"
	"github.com/agent-oracle/oracle/oracle/report"
	"github.com/agent-oracle/oracle/runner/statediff"
	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"
)

// sampleReport is a report of four cases: a regression whose long answer
// changed at its end, a state-diff member change, a missing case and an
// unchanged one.
func sampleReport() *report.Report {
	one, half := 1.0, 0.5
	yes, no := true, false
	old := "Fourteen opportunities are open in the pipeline; the largest deal, with Marrow & Finch <west>, accounts for a quarter of it. The deals of Marrow & Finch <west> are expected to close 2026-07-15."
	fresh := strings.Replace(old, "close 2026", "close on 2026", 1)
	r := &report.Report{Cases: []*report.Case{
		{Case: "crm/solver/TASK-001", Env: "crm", Agent: "solver", Task: "TASK-001", Status: report.StatusChanged,
			Label: change.LabelRegression, OldVerdict: env.Pass, NewVerdict: env.Fail, OldReward: &one, NewReward: &half,
			Files: []*change.FileDiff{{File: "result.json", State: change.FileChanged, Changes: []change.Change{
				{Op: change.ChangeReplace, Path: "/agentOutput", From: quote(old), To: quote(fresh), Words: change.WordDiff(old, fresh)},
				{Op: change.ChangeReplace, Path: "/checks/1/passed", From: []byte("true"), To: []byte("false"), Label: "Names the close date", Folded: true},
				{Op: change.ChangeReplace, Path: "/deals", From: []byte(`{"deals":[` + strings.Repeat(`{"id":"OPP-001","amount":1000},`, 8) + `{"id":"OPP-LAST","amount":1}]}`), To: []byte(`{"deals":[]}`)},
			}, Invisible: []change.Invisible{{Path: "/agentOutput", Kind: "escaping", Detail: `escaping of "&" changed (& → \u0026)`}}}},
			Checks: []change.CheckChange{{Label: "Answers", Kind: "required", Was: &yes, Now: &yes}, {Label: "Names the close date", Kind: "required", Was: &yes, Now: &no}},
			Story: &change.Story{Checks: []change.CheckChange{{Label: "Names the close date", Kind: "required", Was: &yes, Now: &no,
				NewDetail: "no close date in the answer"}}},
			ToolErrors: []change.FailedCall{{Tool: "get_deal", Code: "not_found", Message: "no deal OPP-999"}}},
		{Case: "crm/solver/TASK-002", Env: "crm", Agent: "solver", Task: "TASK-002", Status: report.StatusChanged,
			OldVerdict: env.Pass, NewVerdict: env.Pass, OldReward: &one, NewReward: &one,
			Files: []*change.FileDiff{{File: "state-diff.json", State: change.FileChanged, Members: []change.MemberDiff{
				{Collection: "tickets", ID: "TCK-003", Was: "changed", Now: "changed", Fields: []change.FieldDiff{
					{Path: "/priority", Now: &statediff.Change{Op: "replace", From: quote("urgent"), To: quote("high")}}}},
			}}}},
		{Case: "crm/solver/TASK-003", Env: "crm", Agent: "solver", Task: "TASK-003", Status: report.StatusMissing},
		{Case: "crm/solver/TASK-004", Env: "crm", Agent: "solver", Task: "TASK-004", Status: report.StatusUnchanged},
	}}
	r.Summary = report.Summary{Total: 4, Unchanged: 1, Changed: 2, Missing: 1, Regressions: 1}
	return r
}

func TestHTMLIsSelfContainedAndEscaped(t *testing.T) {
	var out bytes.Buffer
	if err := HTML(&out, sampleReport(), Options{}); err != nil {
		t.Fatal(err)
	}
	page := out.String()
	for _, want := range []string{
		`<span class="count" id="count-changed">2</span>`,
		`close <ins>on </ins>2026-07-15.`,
		`Finch &lt;west&gt; are expected to close <ins>on </ins>2026-07-15.`,
		`check “Names the close date”`,
		`default-src 'none'`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	for _, banned := range []string{"http://", "https://", "<link", "src="} {
		if strings.Contains(page, banned) {
			t.Errorf("page refers outside itself: %q", banned)
		}
	}
}

// TestHTMLInABrowser opens the page in headless Chromium: the counts, a
// highlighted changed word, a status filter that hides the other cases, and
// a screenshot saved in the test's folder.
func TestHTMLInABrowser(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "index.html")
	var out bytes.Buffer
	r := sampleReport()
	r.Oracle, r.Selection = "0.1.0", &report.Selection{Envs: []string{"crm"}, Agents: []string{}, Tasks: []string{}, Cases: 4}
	made := Made{Date: "2026-01-01 00:00 UTC", Commit: "0123abc", Ref: "main"}
	if err := HTML(&out, r, Options{Made: made, CaseLink: func(cr *report.Case) string {
		return "fresh/" + cr.Case + ".view.html"
	}}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	bctx := browsertest.Start(t, "the HTML report's browser test")

	countVisible := `Array.from(document.querySelectorAll('#cases tr.case')).filter(r => !r.hidden && r.offsetParent !== null).length`
	visibleDetails := `Array.from(document.querySelectorAll('section.case-detail')).filter(s => s.offsetParent !== null).length`
	text := func(sel string) string {
		t.Helper()
		v, err := chromedp.Run(bctx, chromedp.Text(sel))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return strings.TrimSpace(v)
	}
	eval := func(expr string) int {
		t.Helper()
		v, err := chromedp.Run(bctx, chromedp.Evaluate[int](expr))
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		return v
	}
	if err := chromedp.Do(bctx, chromedp.Navigate("file://"+path), chromedp.WaitVisible("#cases")); err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	changed, total, inserted := text("#count-changed"), text("#count-total"), text("#case-1 td.value ins")
	insColor, err := chromedp.Run(bctx, chromedp.Evaluate[string](`getComputedStyle(document.querySelector('#case-1 td.value ins')).backgroundColor`))
	if err != nil {
		t.Fatal(err)
	}
	// a regression is one at first sight: the alert above the counts, its
	// count marked, its row's status badged, its first story line
	alert, madeBy := text("#alert"), text("#made")
	badge := text(`#cases tr.regression td.status-changed .badge`)
	alertCount, err := chromedp.Run(bctx, chromedp.Evaluate[string](`getComputedStyle(document.querySelector('#count-regressions').parentElement).backgroundColor`))
	if err != nil {
		t.Fatal(err)
	}
	rowNote := text(`#cases tr.regression td.note`)
	// old values red, new values green, in a state-diff row too
	color := func(sel string) string {
		t.Helper()
		v, err := chromedp.Run(bctx, chromedp.Evaluate[string](`getComputedStyle(document.querySelector(`+"`"+sel+"`"+`)).color`))
		if err != nil {
			t.Fatalf("colour of %s: %v", sel, err)
		}
		return v
	}
	oldMember, newMember := color(`#case-2 table.diff td.value .old`), color(`#case-2 table.diff td.value .new`)
	oldValue, newValue := color(`#case-1 table.diff td.value details.cut summary.old`), color(`#case-1 table.diff td.value .new`)
	// a value cut short opens to its whole, without a script
	cutBefore := eval(`document.querySelector('#case-1 details.cut').textContent.includes('OPP-LAST') && document.querySelector('#case-1 details.cut > span').checkVisibility() ? 1 : 0`)
	if err := chromedp.Do(bctx, chromedp.Click(`#case-1 details.cut summary`)); err != nil {
		t.Fatalf("open the cut value: %v", err)
	}
	cutAfter := eval(`document.querySelector('#case-1 details.cut > span').checkVisibility() && document.querySelector('#case-1 details.cut > span').innerText.includes('OPP-LAST') ? 1 : 0`)
	timeline, err := chromedp.Run(bctx, chromedp.Evaluate[string](`document.querySelector('#cases a.timeline').getAttribute('href')`))
	if err != nil {
		t.Fatal(err)
	}
	foldedOpen := eval(`document.querySelector('#case-1 details.folded').open ? 1 : 0`)
	visibleBefore := eval(countVisible)
	if err := chromedp.Do(bctx, chromedp.Click(`#filters button[data-filter="missing"]`)); err != nil {
		t.Fatalf("click the missing filter: %v", err)
	}
	visibleAfter, detailsAfter := eval(countVisible), eval(visibleDetails)
	shot, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if !strings.HasPrefix(alert, "✗ 1 regression") || badge != "regression" || alertCount == "rgba(0, 0, 0, 0)" {
		t.Errorf("the regression is not marked at first sight: alert %q, badge %q, count background %q", alert, badge, alertCount)
	}
	if !strings.Contains(rowNote, "Names the close date: passed → failed") {
		t.Errorf("the regression's row does not say which check flipped: %q", rowNote)
	}
	if madeBy != "made by oracle 0.1.0 from --env crm (4 cases) on 2026-01-01 00:00 UTC at commit 0123abc (main)" {
		t.Errorf("what made the page: %q", madeBy)
	}
	const red, green = "rgb(130, 7, 30)", "rgb(17, 99, 41)"
	if oldMember != red || newMember != green || oldValue != red || newValue != green {
		t.Errorf("old values red and new ones green: state diff %s → %s, value %s → %s", oldMember, newMember, oldValue, newValue)
	}
	if cutBefore != 0 || cutAfter != 1 {
		t.Errorf("the cut value: whole shown before a click %d, after %d (want 0, 1)", cutBefore, cutAfter)
	}
	if timeline != "fresh/crm/solver/TASK-001.view.html" || foldedOpen != 0 {
		t.Errorf("the case's page link %q; the folded changes open: %d", timeline, foldedOpen)
	}
	if changed != "2" || total != "4" {
		t.Errorf("counts: changed %q, total %q", changed, total)
	}
	if inserted != "on" {
		t.Errorf("highlighted word %q, want the inserted \"on\"", inserted)
	}
	if insColor == "" || insColor == "rgba(0, 0, 0, 0)" {
		t.Errorf("the inserted word has no background: %q", insColor)
	}
	if visibleBefore != 3 || visibleAfter != 1 || detailsAfter != 1 {
		t.Errorf("visible cases: %d before the filter (want 3 needing attention), %d after \"missing\" (want 1), %d details (want 1, the missing case)", visibleBefore, visibleAfter, detailsAfter)
	}
	shotPath := filepath.Join(dir, "report.png")
	if err := os.WriteFile(shotPath, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	if len(shot) == 0 {
		t.Error("empty screenshot")
	}
	t.Logf("screenshot: %s (%d bytes)", shotPath, len(shot))
}

// htmlWhole is the page's parts executed as one template, over the whole
// report: what HTML wrote before it wrote its cases one at a time (the
// parts were cut from that template unchanged).
var htmlWhole = template.Must(template.Must(htmlPage.Clone()).New("whole").Parse(
	`{{template "head" .}}{{range .Cases}}{{template "row" .}}{{end}}{{template "mid" .}}{{range .Cases}}{{template "detail" .}}{{end}}{{template "foot" .}}`))

// TestHTMLWritesWhatTheWholePageWrites: HTML (which writes the page in
// parts through its Writer) writes what the page executed whole writes,
// for reports with no case, unchanged cases only, and every status with
// text HTML must escape.
func TestHTMLWritesWhatTheWholePageWrites(t *testing.T) {
	one, half := 1.0, 0.5
	odd := "a & b <script>alert(1)</script> \"q\" 'x' \u2028 `tick` {{.}}"
	changed := &report.Case{Case: "e/a/T-1", Env: "e", Agent: "a", Task: "T-1", Status: report.StatusChanged, Label: change.LabelRegression,
		OldVerdict: "pass", NewVerdict: "fail", OldReward: &one, NewReward: &half,
		Files: []*change.FileDiff{{File: "result.json", State: change.FileChanged, Changes: []change.Change{
			{Op: change.ChangeReplace, Path: "/agentOutput", From: quote(odd), To: quote(odd + "!"), Words: change.WordDiff(odd, odd+"!")},
		}}},
		ToolErrors:     []change.FailedCall{{Tool: "get", Code: "not_found", Message: odd}},
		NewToolErrors:  []change.FailedCall{{Call: 2, Tool: "set", Code: "bad", Message: odd}},
		GoneToolErrors: []change.FailedCall{{Call: 1, Tool: "get", Code: "gone", Message: odd}}}
	plain := func(task string, st report.Status) *report.Case {
		return &report.Case{Case: "e/a/" + task, Env: "e", Agent: "a", Task: task, Status: st, NewVerdict: "pass"}
	}
	errored := plain("T-9", report.StatusError)
	errored.Error = odd
	reports := []*report.Report{
		{},
		{Cases: []*report.Case{plain("T-1", report.StatusUnchanged), plain("T-2", report.StatusUnchanged)}},
		{Cases: []*report.Case{changed, plain("T-2", report.StatusUnchanged), plain("T-3", report.StatusMissing),
			plain("T-4", report.StatusObsolete), errored, plain("T-5", report.StatusNondeterministic)}},
	}
	cmds := Commands{Record: "oracle record", Prune: "oracle record --prune"}
	for i, r := range reports {
		r.Summary = report.Summary{Total: len(r.Cases), Unchanged: 1, Changed: 1, Regressions: 1}
		want, err := htmlWholePage(r, Options{Commands: cmds})
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := HTML(&got, r, Options{Commands: cmds}); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got.String()); diff != "" {
			t.Errorf("report %d (-whole +HTML):\n%s", i, diff)
		}
	}
}

// htmlWholePage is HTML as it was before it wrote its cases one at a time.
func htmlWholePage(r *report.Report, o Options) (string, error) {
	v := htmlViewOf(r, o)
	for i, c := range r.Cases {
		v.Cases = append(v.Cases, htmlCaseOf(i+1, c, o))
	}
	var buf bytes.Buffer
	err := htmlWhole.Execute(&buf, v)
	return buf.String(), err
}

// TestHTMLGroupsAndBounds: cases sharing one change are shown once, the
// others' rows linking to it and the groups named above the details; with
// MaxCases the rest are counted, not listed.
func TestHTMLGroupsAndBounds(t *testing.T) {
	var cases []*report.Case
	for i := range 5 {
		cases = append(cases, changedCase(i, "The total is $479,659.50.", "The total is $532,955.00."))
	}
	cases = append(cases, changedCase(9, "another", "change"))
	var out bytes.Buffer
	if err := HTML(&out, reportOf(cases), Options{}); err != nil {
		t.Fatal(err)
	}
	page := out.String()
	if n := strings.Count(page, `<section class="case-detail"`); n != 2 {
		t.Errorf("%d sections for two changes, want 2", n)
	}
	for _, want := range []string{
		`<p class="same-change">the same change in 5 cases: <a href="#case-1">e/a/TASK-00000</a> (shown), e/a/TASK-00001, e/a/TASK-00002, e/a/TASK-00003, e/a/TASK-00004</p>`,
		`; the same change as <a href="#case-1">e/a/TASK-00000</a>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	out.Reset()
	if err := HTML(&out, reportOf(cases), Options{MaxCases: 2}); err != nil {
		t.Fatal(err)
	}
	page = out.String()
	if n := strings.Count(page, `<tr class="case`); n != 2 || !strings.Contains(page, `<p id="unlisted" class="note">4 more cases need attention (4 changed), not listed here; `) {
		t.Errorf("bounded to 2 cases: %d rows\n%s", n, page)
	}
}
