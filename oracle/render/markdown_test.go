package render

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/oracle/change"
	"github.com/agent-oracle/oracle/oracle/report"
	"github.com/agent-oracle/oracle/runner/statediff"
	"github.com/google/go-cmp/cmp"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"
)

// hostile values: each would end a code span, split a cell, start emphasis,
// a link, a math span or an HTML tag if written as it is.
var hostile = []string{
	"`open`", "'open'", "``` fence", "a | b", "A & B", "&amp; already", "<script>alert(1)</script>",
	"*bold* _it_", "$5 and $6", `back\slash \| pipe`, "~~gone~~", "[link](http://x)", "![img](x)",
	"#1 <b>", "  spaced  ", "é ✓ 日本",
}

// cell is the rendered text of one table cell, with the text of its <del>
// and <ins> parts.
type cell struct{ text, del, ins string }

// renderCells renders Markdown with goldmark (CommonMark and GitHub's
// tables) and returns the text of every table row's cells.
func renderCells(t *testing.T, md []byte) [][]cell {
	t.Helper()
	var out bytes.Buffer
	gm := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(html.WithUnsafe()))
	if err := gm.Convert(md, &out); err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(strings.NewReader("<root>" + out.String() + "</root>"))
	dec.Strict = false
	dec.AutoClose = xml.HTMLAutoClose
	dec.Entity = xml.HTMLEntity
	var rows [][]cell
	var cur *cell
	var in []string
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("rendered HTML: %v\n%s", err, out.String())
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			switch tok.Name.Local {
			case "tr":
				rows = append(rows, nil)
			case "td", "th":
				cur = &cell{}
			}
			in = append(in, tok.Name.Local)
		case xml.EndElement:
			if (tok.Name.Local == "td" || tok.Name.Local == "th") && cur != nil {
				rows[len(rows)-1] = append(rows[len(rows)-1], *cur)
				cur = nil
			}
			if len(in) > 0 {
				in = in[:len(in)-1]
			}
		case xml.CharData:
			if cur == nil {
				continue
			}
			// the word joiners that keep mentions and URLs text are
			// invisible: the reader sees the text without them
			tok = xml.CharData(strings.ReplaceAll(string(tok), "\u2060", ""))
			cur.text += string(tok)
			for _, e := range in {
				switch e {
				case "del":
					cur.del += string(tok)
				case "ins":
					cur.ins += string(tok)
				}
			}
		}
	}
	return rows
}

func quote(s string) json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return json.RawMessage(bytes.TrimSpace(buf.Bytes()))
}

// TestMarkdownCellsRenderTheValues renders a report whose values, labels and
// notes hold every character Markdown or HTML could read as syntax, and
// checks with a CommonMark renderer that each cell's text is the value.
func TestMarkdownCellsRenderTheValues(t *testing.T) {
	var changes []change.Change
	for i, v := range hostile {
		changes = append(changes, change.Change{Op: change.ChangeReplace, Path: "/checks/" + string(rune('0'+i%10)) + "/detail",
			From: quote(v), To: quote(v + "!"), Label: v})
	}
	words := change.WordDiff("the `open` deals | & * close 2026-07-15.", "the `open` deals | & * close on 2026-07-15.")
	changes = append(changes, change.Change{Op: change.ChangeReplace, Path: "/agentOutput",
		From: quote("the `open` deals | & * close 2026-07-15."), To: quote("the `open` deals | & * close on 2026-07-15."), Words: words})
	r := &report.Report{Cases: []*report.Case{
		{Case: "e/a/T-1", Env: "e", Agent: "a", Task: "T-1", Status: report.StatusChanged, OldVerdict: env.Pass, NewVerdict: env.Pass,
			Files:      []*change.FileDiff{{File: "result.json", State: change.FileChanged, Changes: changes}},
			ToolErrors: []change.FailedCall{{Tool: "list_*deals*", Code: "not_found", Message: "no deal `OPP-9` | <none> & more"}}},
		{Case: "e/a/T-2", Env: "e", Agent: "a", Task: "T-2", Status: report.StatusError, Error: "tool `x` failed: a | b & <c> *d*"},
	}}
	var md bytes.Buffer
	if err := Markdown(&md, r, Options{}); err != nil {
		t.Fatal(err)
	}
	rows := renderCells(t, md.Bytes())
	texts := func(row []cell) []string {
		var out []string
		for _, c := range row {
			out = append(out, c.text)
		}
		return out
	}
	var got [][]string
	for _, row := range rows {
		got = append(got, texts(row))
	}
	want := [][]string{
		{"case", "status", "note"},
		{"e/a/T-1", "changed", "verdict pass, as beforetool errors of this run: 1"},
		{"e/a/T-2", "error", "tool `x` failed: a | b & <c> *d*"},
		{"call", "tool", "code", "message"},
		{"", "list_*deals*", "not_found", "no deal `OPP-9` | <none> & more"},
		{"op", "path", "check", "old", "new"},
	}
	for i, v := range hostile {
		want = append(want, []string{"replace", "/checks/" + string(rune('0'+i%10)) + "/detail", v, `"` + v + `"`, `"` + v + `!"`})
	}
	want = append(want,
		[]string{"replace", "/agentOutput", "", `"the ` + "`open`" + ` deals | & * close 2026-07-15."`, `"the ` + "`open`" + ` deals | & * close on 2026-07-15."`},
	)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rendered cells (-want +got):\n%s\nmarkdown:\n%s", diff, md.String())
	}
	// The word diff marks the inserted word in the new cell only.
	wordRow := rows[len(rows)-1]
	if wordRow[3].del != "" || wordRow[4].ins != "on " {
		t.Errorf("word diff cells: old %+v, new %+v", wordRow[3], wordRow[4])
	}
}

// TestMarkdownMembers renders state-diff members and checks their cells:
// a field both sides change the same way has its differing words marked,
// <del> in the baseline's cell and <ins> in the fresh one, long strings with
// a window of context, never a prefix.
func TestMarkdownMembers(t *testing.T) {
	long := "Fourteen opportunities are open in the pipeline, of which nine are owned by reps in the west region; " +
		"the largest single deal accounts for a quarter of it and, with Marrow & Finch | `MF`, will close "
	oldNote, newNote := long+"2026-07-15.", long+"on 2026-07-15."
	r := &report.Report{Cases: []*report.Case{{Case: "e/a/T", Env: "e", Agent: "a", Task: "T", Status: report.StatusChanged,
		Files: []*change.FileDiff{{File: "state-diff.json", State: change.FileChanged, Members: []change.MemberDiff{
			{Collection: "tickets", ID: "TCK-003", Was: "changed", Now: "changed", Fields: []change.FieldDiff{
				{Path: "/priority", Now: &statediff.Change{Op: "replace", From: quote("urgent"), To: quote("high | `low`")}},
				{Path: "/note", Was: &statediff.Change{Op: "replace", From: quote("none"), To: quote(oldNote)},
					Now: &statediff.Change{Op: "replace", From: quote("none"), To: quote(newNote)}, ToWords: change.WordDiff(oldNote, newNote)},
				{Path: "/status", Was: &statediff.Change{Op: "replace", From: quote("open"), To: quote("pending")},
					Now: &statediff.Change{Op: "replace", From: quote("open"), To: quote("closed")}, ToWords: change.WordDiff("pending", "closed")},
				{Path: "/count", Was: &statediff.Change{Op: "replace", From: json.RawMessage("1"), To: json.RawMessage("2")},
					Now: &statediff.Change{Op: "replace", From: json.RawMessage("1"), To: json.RawMessage("3")}},
			}},
		}}}}}}
	var md bytes.Buffer
	if err := Markdown(&md, r, Options{}); err != nil {
		t.Fatal(err)
	}
	rows := renderCells(t, md.Bytes())
	rows = rows[len(rows)-4:]
	var got [][]string
	for _, row := range rows {
		var texts []string
		for _, c := range row {
			texts = append(texts, c.text)
		}
		got = append(got, texts)
	}
	what := "changed differently: "
	want := [][]string{
		{"tickets TCK-003", what + "now also changed", "/priority", "", `"urgent" → "high | ` + "`low`" + `"`},
		{"tickets TCK-003", what + "changed differently", "/note", `"none" → "…& Finch | ` + "`MF`" + `, will close 2026-07-15."`,
			`"none" → "…& Finch | ` + "`MF`" + `, will close on 2026-07-15."`},
		{"tickets TCK-003", what + "changed differently", "/status", `"open" → "pending"`, `"open" → "closed"`},
		{"tickets TCK-003", what + "changed differently", "/count", `1 → 2`, `1 → 3`},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("member rows (-want +got):\n%s\nmarkdown:\n%s", diff, md.String())
	}
	marks := [][2]string{}
	for _, row := range rows[1:] {
		marks = append(marks, [2]string{row[3].del + "/" + row[3].ins, row[4].del + "/" + row[4].ins})
	}
	wantMarks := [][2]string{{"/", "/on "}, {"pending/", "/closed"}, {"2/", "/3"}}
	if diff := cmp.Diff(wantMarks, marks); diff != "" {
		t.Errorf("marked words, baseline's cell and fresh cell as del/ins (-want +got):\n%s\nmarkdown:\n%s", diff, md.String())
	}
}

// FuzzMarkdownCell checks that any one-line printable value written by
// mdText and mdCode renders, through a CommonMark renderer, as itself.
func FuzzMarkdownCell(f *testing.F) {
	for _, v := range hostile {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v string) {
		for _, r := range v {
			if !unicode.IsPrint(r) || r == utf8.RuneError {
				return
			}
		}
		if !utf8.ValidString(v) {
			return
		}
		md := "| a | b |\n| --- | --- |\n| " + mdText(v) + " | " + mdCode(v) + " |\n"
		rows := renderCells(t, []byte(md))
		if len(rows) != 2 || len(rows[1]) != 2 || rows[1][0].text != v || v != "" && rows[1][1].text != v {
			t.Fatalf("value %q rendered as %+v\n%s", v, rows, md)
		}
	})
}
