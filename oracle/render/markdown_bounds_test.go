package render

import (
	"bytes"
	"fmt"
	stdhtml "html"
	"regexp"
	"strings"
	"testing"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/oracle/change"
	"github.com/agent-oracle/oracle/oracle/report"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"
)

// GitHub's limits: a pull-request comment takes 65,536 characters, a job
// summary 1 MiB. The Markdown report is held to the smaller, in bytes.
const githubCommentLimit = 65536

// changedCase is a changed case of e/a/TASK-n whose answer changed from
// old to fresh, with a flipped check.
func changedCase(n int, old, fresh string) *report.Case {
	var words []change.Span
	if len(old) < 1000 {
		words = change.WordDiff(old, fresh)
	}
	yes, no := true, false
	one, zero := 1.0, 0.0
	task := fmt.Sprintf("TASK-%05d", n)
	return &report.Case{Case: "e/a/" + task, Env: "e", Agent: "a", Task: task, Status: report.StatusChanged,
		Label: change.LabelRegression, OldVerdict: env.Pass, NewVerdict: env.Fail, OldReward: &one, NewReward: &zero,
		Story: &change.Story{Checks: []change.CheckChange{{Label: "Names the total", Kind: "required", Was: &yes, Now: &no, NewDetail: "answered " + fresh}}},
		Files: []*change.FileDiff{{File: "result.json", State: change.FileChanged, Changes: []change.Change{
			{Op: change.ChangeReplace, Path: "/agentOutput", From: quote(old), To: quote(fresh), Words: words},
			{Op: change.ChangeReplace, Path: "/verdict", From: quote("pass"), To: quote("fail"), Folded: true},
		}}}}
}

func reportOf(cases []*report.Case) *report.Report {
	r := &report.Report{Cases: cases}
	for _, c := range cases {
		r.Summary.Total++
		switch c.Status {
		case report.StatusChanged:
			r.Summary.Changed++
		case report.StatusMissing:
			r.Summary.Missing++
		case report.StatusUnchanged:
			r.Summary.Unchanged++
		}
		if c.Label == change.LabelRegression {
			r.Summary.Regressions++
		}
	}
	return r
}

// checkTables renders md with goldmark (GitHub's tables) and fails t when
// a table's row has another number of cells than its header, or a
// <details> is left open: what a report cut mid-table shows.
func checkTables(t *testing.T, md []byte) {
	t.Helper()
	var out bytes.Buffer
	if err := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(html.WithUnsafe())).Convert(md, &out); err != nil {
		t.Fatal(err)
	}
	for _, table := range strings.Split(out.String(), "<table>")[1:] {
		table, _, ok := strings.Cut(table, "</table>")
		if !ok {
			t.Fatalf("a table is not closed")
		}
		width := -1
		for _, row := range strings.Split(table, "<tr>")[1:] {
			cells := strings.Count(row, "<td") + strings.Count(row, "<th")
			if width < 0 {
				width = cells
			}
			if cells != width {
				t.Fatalf("a row has %d cells, its table %d: %s", cells, width, row)
			}
		}
	}
	if open, closed := strings.Count(string(md), "<details>"), strings.Count(string(md), "</details>"); open != closed {
		t.Fatalf("%d <details> and %d </details>", open, closed)
	}
}

// TestMarkdownStaysUnderTheHostsLimits: whatever the change (thousands of
// changed cases, one answer of megabytes, one file of thousands of
// changes, thousands of cases sharing one change), the Markdown report
// fits a GitHub comment, its tables are whole, and what it does not list is
// counted with where to find it.
func TestMarkdownStaysUnderTheHostsLimits(t *testing.T) {
	var many, same []*report.Case
	for i := range 2720 {
		many = append(many, changedCase(i, fmt.Sprintf("The total is $%d.50 across 12 deals.", i), fmt.Sprintf("The total is $%d.00 across 13 deals.", i)))
		same = append(same, changedCase(i, "The total is $479,659.50.", "The total is $532,955.00."))
	}
	long := strings.Repeat("word ", 320_000) // 1.6 MB
	huge := changedCase(1, long+"end", strings.Repeat("other ", 270_000))
	huge.Files[0].Changes[0].Words = nil // they share no word: the diff shows old → new
	bigFile := changedCase(2, "a", "b")
	for i := range 10_000 {
		bigFile.Files[0].Changes = append(bigFile.Files[0].Changes, change.Change{Op: change.ChangeReplace,
			Path: fmt.Sprintf("/calls/%d/output", i), From: quote(strings.Repeat("x", 400)), To: quote(strings.Repeat("y", 400))})
	}
	for _, tt := range []struct {
		name     string
		r        *report.Report
		o        Options
		rows     int    // case rows in the table
		unlisted string // the count line
	}{
		{"2720 changed cases", reportOf(many), Options{}, DefaultMarkdownCases, "2690 more cases need attention (2690 changed), not listed here; every case is in the report folder (oracle check --report-dir) and the JSON report"},
		{"one answer of 1.6 MB", reportOf([]*report.Case{huge}), Options{}, 1, ""},
		{"10000 changes in one file", reportOf([]*report.Case{bigFile}), Options{}, 1, ""},
		{"2720 cases, one change", reportOf(same), Options{}, DefaultMarkdownCases, "2690 more cases need attention"},
		{"--max-cases 3", reportOf(many), Options{MaxCases: 3, Elsewhere: "every case is in the report folder oracle-report"}, 3, "2717 more cases need attention (2717 changed), not listed here; every case is in the report folder oracle-report"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var md bytes.Buffer
			if err := Markdown(&md, tt.r, tt.o); err != nil {
				t.Fatal(err)
			}
			if md.Len() > githubCommentLimit {
				t.Fatalf("%d bytes, over GitHub's %d", md.Len(), githubCommentLimit)
			}
			checkTables(t, md.Bytes())
			if rows := strings.Count(md.String(), "\n| <code>e/a/TASK-"); rows != tt.rows {
				t.Errorf("%d case rows, want %d", rows, tt.rows)
			}
			if tt.unlisted != "" && !strings.Contains(md.String(), mdText(tt.unlisted)) {
				t.Errorf("no line %q:\n%.3000s", tt.unlisted, md.String())
			}
			if tt.unlisted == "" && strings.Contains(md.String(), "not listed here") {
				t.Errorf("a case is not listed:\n%.3000s", md.String())
			}
			// the first lines say which checks flipped and why
			head := strings.Join(strings.SplitN(md.String(), "\n", 8)[:7], "\n")
			if !strings.Contains(head, "✗ check &#34;Names the total&#34; (required): passed → failed") && !strings.Contains(head, "✗ check \"Names the total\" (required): passed → failed") {
				t.Errorf("the first lines do not say which check flipped:\n%s", head)
			}
		})
	}
	// one change shared by every case is shown once, the cases named
	var md bytes.Buffer
	if err := Markdown(&md, reportOf(same), Options{}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(md.String(), "<details><summary><code>e/a/"); n != 1 {
		t.Errorf("%d sections for one change, want 1", n)
	}
	if !strings.Contains(md.String(), "The same change in 2720 cases: <code>e/a/TASK-00000</code>, <code>e/a/TASK-00001</code>") {
		t.Errorf("the shared change does not name its cases:\n%.3000s", md.String())
	}
}

// githubMention is GitHub's rule for a mention in rendered text (its
// MentionFilter): an @ at the start or after a character that is not a
// word character, then a letter or digit. A word joiner after the @ breaks
// it; an entity would not (the filter reads the rendered text), and a
// code span is not read by the filter but is by the autolinker.
var githubMention = regexp.MustCompile(`(?:^|\W)@[a-zA-Z0-9]`)

// githubIssueRef is GitHub's rule for an issue reference: # and digits
// after a word boundary.
var githubIssueRef = regexp.MustCompile(`(?:^|\W)#[0-9]`)

// TestMarkdownMentionsAndURLsStayText renders mentions, bare URLs, e-mail
// addresses and issue references from agent text in every kind of cell and
// paragraph with goldmark and GitHub's autolink extension (Linkify): no
// link is made, no text node holds a mention or an issue reference by
// GitHub's rules, and the text a reader sees is the value.
func TestMarkdownMentionsAndURLsStayText(t *testing.T) {
	values := []string{"@octocat", "ping @github/security now", "see https://evil.test/login?x=1", "http://x.test", "www.evil.test/a",
		"WWW.Evil.test", "mail a@b.test", "mailto:a@b.test", "xmpp:a@b.test", "ftp://files.test/x", "fixes #12", "GH #3", "a@b"}
	yes, no := true, false
	var changes []change.Change
	var tes []change.FailedCall
	var checks []change.CheckChange
	for i, v := range values {
		changes = append(changes, change.Change{Op: change.ChangeReplace, Path: "/" + v, From: quote(v), To: quote(v + " !"), Label: v,
			Words: change.WordDiff(v, v+" !")})
		tes = append(tes, change.FailedCall{Call: i + 1, Tool: v, Code: v, Message: v})
		checks = append(checks, change.CheckChange{Label: v, Kind: "required", Was: &yes, Now: &no, NewDetail: v})
	}
	r := reportOf([]*report.Case{
		{Case: "e/a/T-1", Env: "e", Agent: "a", Task: "T-1", Status: report.StatusChanged, OldVerdict: env.Pass, NewVerdict: env.Fail,
			Story: &change.Story{Checks: checks, NewViolations: values}, NewToolErrors: tes,
			Files: []*change.FileDiff{{File: "result.json", State: change.FileChanged, Changes: changes}}},
		{Case: "e/a/T-2", Env: "e", Agent: "a", Task: "T-2", Status: report.StatusError, Error: strings.Join(values, " ")},
	})
	var md bytes.Buffer
	if err := Markdown(&md, r, Options{}); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := goldmark.New(goldmark.WithExtensions(extension.GFM, extension.Linkify), goldmark.WithRendererOptions(html.WithUnsafe())).Convert(md.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "<a ") || strings.Contains(out.String(), "<a>") {
		t.Errorf("a link was made:\n%s", out.String())
	}
	text := textNodes(out.String())
	for _, v := range values {
		if !strings.Contains(strings.ReplaceAll(text, "\u2060", ""), v) {
			t.Errorf("the rendered text does not read %q", v)
		}
	}
	for _, node := range strings.Split(text, "\n") {
		if m := githubMention.FindString(node); m != "" {
			t.Errorf("GitHub would read a mention %q in %q", m, node)
		}
		if m := githubIssueRef.FindString(node); m != "" {
			t.Errorf("GitHub would read an issue reference %q in %q", m, node)
		}
	}
}

// textNodes is the text of rendered HTML, one text node a line, the
// character references decoded as a browser decodes them.
func textNodes(page string) string {
	var b strings.Builder
	for _, part := range regexp.MustCompile(`<[^>]*>`).Split(page, -1) {
		if part = strings.TrimSpace(part); part != "" {
			b.WriteString(stdhtml.UnescapeString(part) + "\n")
		}
	}
	return b.String()
}
