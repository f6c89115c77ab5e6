package render

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/internal/safetext"
	"github.com/agent-oracle/oracle/oracle/change"
	"github.com/agent-oracle/oracle/oracle/report"
	"github.com/agent-oracle/oracle/runner/statediff"
)

// foreign marks the start of every string of a hostile report: a line of
// the text report that starts with it (after its indent) starts with
// outside text.
const foreign = "Ω"

// hostileStrings are attacks on a terminal or a CI log, each of which the
// renderers must show as text: cursor movement, an OSC 52 clipboard write,
// an OSC 8 hyperlink, a carriage return that hides a line, a right-to-left
// override, zero-width and invisible characters, workflow commands of
// GitHub Actions and Azure Pipelines after a newline or anywhere, a C1 CSI,
// characters XML forbids and bytes that are not UTF-8.
var hostileStrings = []string{
	"\x1b[2J\x1b[Hcleared", "\x1b]52;c;ZXZpbA==\x07clipboard", "\x1b]8;;http://x.test/\x1b\\link\x1b]8;;\x1b\\",
	"ok\rFAKE PASS", "abc\u202Egnp.exe", "zero\u200Bwidth\u2060\uFEFF\u3164", "tool\n::error file=a.go::pwned",
	"x\n::add-mask::s3cret", "\r\n##vso[task.setvariable variable=X]1", "inline ##vso[task.complete result=Succeeded]",
	"\n##[error]boom", "c1 \u009b31m \u0085 NEL", "xml \uFFFE\uFFFF \x00\x01\x0b\x0c", "bad \xff\xfe \xed\xa0\x80 utf8",
	"@octocat and https://evil.test/x and www.evil.test and a@b.test #12", "line\u2028sep\u2029",
}

// hostileReport is a report whose every string field, in every kind of
// case, holds foreign followed by one of parts (in turn), and whose every
// JSON value holds them as strings and inside objects.
func hostileReport(parts ...string) *report.Report {
	if len(parts) == 0 {
		parts = []string{""}
	}
	i := 0
	next := func() string {
		s := foreign + parts[i%len(parts)]
		i++
		return s
	}
	str := func() json.RawMessage { return quote(next()) }
	obj := func() json.RawMessage {
		b, _ := json.Marshal(map[string]any{next(): next(), "n": []any{next(), 1, strings.Repeat(next(), 3)}})
		return b
	}
	yes, no := true, false
	one, half := 1.0, 0.5
	old, fresh := next(), next()
	words := change.WordDiff(old+" shared words here", fresh+" shared words here")
	oldDetail, newDetail := next(), next()
	tes := func() []change.FailedCall {
		return []change.FailedCall{{Call: 2, Tool: next(), Code: next(), Message: next()}, {Tool: next(), Message: next()}}
	}
	file := func() *change.FileDiff {
		return &change.FileDiff{File: next(), State: change.FileChanged, Error: next(), Changes: []change.Change{
			{Op: change.ChangeReplace, Path: next(), From: str(), To: str(), Label: next(), Words: words},
			{Op: change.ChangeReplace, Path: next(), From: obj(), To: obj(), Call: next()},
			{Op: change.ChangeAdd, Path: next(), To: obj(), Label: next()},
			{Op: change.ChangeRemove, Path: next(), From: str()},
			{Op: change.ChangeOp(next()), Path: next(), From: str(), To: str(), Folded: true},
			{Op: change.ChangeReplace, Path: "", From: obj(), To: obj()},
		}, Members: []change.MemberDiff{
			{Collection: next(), ID: next(), Was: next(), Now: next(), Fields: []change.FieldDiff{
				{Path: next(), Was: &statediff.Change{Op: statediff.Op(next()), From: str(), To: obj()}, Now: &statediff.Change{Op: statediff.Op(next()), From: obj(), To: str()}},
				{Path: next(), Was: &statediff.Change{Op: "replace", From: str(), To: str()}, Now: &statediff.Change{Op: "replace", From: str(), To: str()}, FromWords: words, ToWords: words},
				{Path: next(), Now: &statediff.Change{Op: "add", To: obj()}},
				{Path: next(), Was: &statediff.Change{Op: "remove", From: obj()}},
			}},
			{Collection: next(), ID: next(), Now: "added", NewValue: obj()},
			{ID: next(), Was: "removed", OldValue: obj(), Value: []change.Change{{Op: change.ChangeReplace, Path: next(), From: str(), To: str()}}},
		}, Invisible: []change.Invisible{{Path: next(), Kind: next(), Detail: next()}}}
	}
	changed := &report.Case{Case: next(), Env: next(), Agent: next(), Task: next(), Status: report.StatusChanged,
		Label: change.LabelRegression, OldVerdict: env.Verdict(next()), NewVerdict: env.Verdict(next()), OldReward: &one, NewReward: &half,
		Violations: []string{next(), next()}, NewToolErrors: tes(), GoneToolErrors: tes(), ToolErrors: tes(), OldToolErrors: 3, ToolErrorsFrom: next(),
		Checks: []change.CheckChange{{Label: next(), Kind: next(), Was: &yes, Now: &no}},
		Story: &change.Story{Checks: []change.CheckChange{
			{Label: next(), Kind: next(), OldKind: next(), Was: &yes, Now: &no, NewDetail: newDetail, OldDetail: &oldDetail, Words: change.WordDiff(oldDetail+" same", newDetail+" same")},
			{Label: next(), Kind: next(), Was: &no, Now: &no, NewDetail: next(), OldDetail: &oldDetail},
			{Label: next(), Now: &yes, NewDetail: next()},
			{Label: next(), Was: &yes, OldDetail: &oldDetail},
		}, NewViolations: []string{next()}, GoneViolations: []string{next()}},
		Files: []*change.FileDiff{file(), {File: next(), State: change.FileUnreadable, Error: next()}, {File: next(), State: change.FileMissing}}}
	same := *changed // a second case with the same change
	same.Case = next()
	errored := &report.Case{Case: next(), Env: next(), Agent: next(), Task: next(), Status: report.StatusError, Error: next()}
	diverged := &report.Case{Case: next(), Env: next(), Agent: next(), Task: next(), Status: report.StatusNondeterministic,
		Divergence: &report.Divergence{Run: 2, Diff: file()}}
	unknown := &report.Case{Case: next(), Env: next(), Agent: next(), Task: next(), Status: report.Status(next()), Label: change.Label(next()),
		Files: []*change.FileDiff{file()}, Divergence: &report.Divergence{Run: 3}}
	missing := &report.Case{Case: next(), Env: next(), Agent: next(), Task: next(), Status: report.StatusMissing, NewVerdict: env.Verdict(next())}
	unchanged := &report.Case{Case: next(), Env: next(), Agent: next(), Task: next(), Status: report.StatusUnchanged}
	r := &report.Report{FormatVersion: report.Format, Oracle: next(), Shard: next(),
		Selection: &report.Selection{Envs: []string{next()}, Agents: []string{next()}, Tasks: []string{next()}, Cases: 7},
		Cases:     []*report.Case{changed, &same, errored, diverged, unknown, missing, unchanged}}
	r.Summary = report.Summary{Total: 7, Unchanged: 1, Changed: 2, Missing: 1, Nondeterministic: 1, Error: 1, Regressions: 2, Violations: 2}
	return r
}

// testColors paint with SGR sequences that sgr finds, as a terminal's
// colours would.
var testColors = func() Colors {
	p := func(code string) func(...any) string {
		return func(a ...any) string { return "\x1b[" + code + "m" + fmt.Sprint(a...) + "\x1b[0m" }
	}
	return Colors{Good: p("32"), Bad: p("31"), Warn: p("33"), Dim: p("2"), Bold: p("1"), Del: p("31;9"), Ins: p("32;4")}
}()

var sgr = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// checkTextIsText fails t when out holds a control byte other than the
// newlines and the colour codes a renderer writes, a character safetext
// escapes, bytes that are not UTF-8, an Azure Pipelines logging command, or
// a line that starts (after its indent) with outside text or a workflow
// command.
func checkTextIsText(t *testing.T, what string, out []byte) {
	t.Helper()
	text := sgr.ReplaceAllString(string(out), "")
	if !utf8.ValidString(text) {
		t.Fatalf("%s is not UTF-8:\n%q", what, text)
	}
	for _, r := range text {
		if r != '\n' && safetext.Unsafe(r) {
			t.Fatalf("%s holds %U:\n%q", what, r, text)
		}
	}
	if strings.Contains(strings.ToLower(text), "##vso[") {
		t.Fatalf("%s holds an Azure Pipelines logging command:\n%s", what, text)
	}
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		if strings.HasPrefix(trimmed, foreign) || strings.HasPrefix(trimmed, "::") || strings.HasPrefix(trimmed, "##") {
			t.Fatalf("%s has a line that starts with outside text: %q\n%s", what, line, text)
		}
	}
}

// TestTextShowsHostileStringsAsText renders a report holding each hostile
// string in every field, with and without colours, in the text report, a
// report folder's text report, the JUnit body and oracle diff's output.
func TestTextShowsHostileStringsAsText(t *testing.T) {
	for _, h := range hostileStrings {
		r := hostileReport(h)
		for name, o := range map[string]Options{
			"plain":   {All: true},
			"colours": {All: true, Colors: testColors},
			"verbose": {All: true, Verbose: true, Colors: testColors, MaxValue: 1000},
			"bounded": {MaxCases: 1, Commands: Commands{Unfold: foreign + h}},
		} {
			var out bytes.Buffer
			if err := Text(&out, r, o); err != nil {
				t.Fatal(err)
			}
			checkTextIsText(t, fmt.Sprintf("text (%s) of %q", name, h), out.Bytes())
		}
		var diffs []change.PathDiff
		for _, f := range r.Cases[0].Files {
			diffs = append(diffs, change.PathDiff{Path: f.File, Diff: f})
		}
		var out bytes.Buffer
		if err := PathDiffs(&out, diffs, testColors); err != nil {
			t.Fatal(err)
		}
		checkTextIsText(t, fmt.Sprintf("diff of %q", h), out.Bytes())
	}
	// what a reader sees: the escapes, on the lines the renderer made
	var out bytes.Buffer
	if err := Text(&out, hostileReport("tool\n::error file=a.go::pwned", "\x1b]52;c;ZXZpbA==\x07", "abc\u202Egnp"), Options{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`Ωtool\n::error file=a.go::pwned`,
		`Ω\x1b]52;c;ZXZpbA==\a`,
		`Ωabc\u202egnp`,
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the text report lacks %s:\n%s", want, out.String())
		}
	}
}

// FuzzText fills every field of a report's cases from the fuzzer's strings
// and checks that the text report (plain, coloured, verbose, bounded) holds
// no foreign control byte and no line that outside text starts.
func FuzzText(f *testing.F) {
	for i, h := range hostileStrings {
		f.Add(h, hostileStrings[(i+1)%len(hostileStrings)], "")
	}
	f.Fuzz(func(t *testing.T, a, b, c string) {
		r := hostileReport(a, b, c)
		for name, o := range map[string]Options{
			"plain":   {All: true},
			"colours": {All: true, Colors: testColors, Commands: Commands{Record: foreign + a, Prune: foreign + b, Unfold: foreign + c}},
			"verbose": {All: true, Verbose: true, MaxValue: 3},
			"bounded": {MaxCases: 1, Elsewhere: foreign + c},
		} {
			var out bytes.Buffer
			if err := Text(&out, r, o); err != nil {
				t.Fatal(err)
			}
			checkTextIsText(t, "text ("+name+")", out.Bytes())
		}
	})
}

// TestPagesShowHostileStringsAsText: the HTML page and the Markdown report
// of each hostile string in every field hold no control character (but
// their own newlines), no bidirectional or invisible character and no byte
// that is not UTF-8: each is shown as its escape, and no link is made of
// agent text.
func TestPagesShowHostileStringsAsText(t *testing.T) {
	for _, h := range hostileStrings {
		for _, f := range []Format{{Name: "html", Write: HTML}, {Name: "markdown", Write: Markdown}} {
			var out bytes.Buffer
			if err := f.Write(&out, hostileReport(h), Options{}); err != nil {
				t.Fatal(err)
			}
			page := out.String()
			if !utf8.ValidString(page) {
				t.Fatalf("%s of %q is not UTF-8", f.Name, h)
			}
			for _, r := range page {
				if r != '\n' && safetext.Unsafe(r) {
					t.Fatalf("%s of %q holds %U", f.Name, h, r)
				}
			}
			if strings.Contains(page, `href="http`) || strings.Contains(page, "<script>alert") {
				t.Fatalf("%s of %q links or runs agent text", f.Name, h)
			}
		}
	}
}

// checkXML parses a JUnit report with encoding/xml in strict mode, token by
// token, and fails t when it is not well-formed.
func checkXML(t *testing.T, what string, data []byte) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = true
	for {
		_, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatalf("%s is not well-formed XML: %v\n%q", what, err, data)
		}
	}
}

// hostileJUnit is the JUnit report of a hostile report for each hostile
// string.
func hostileJUnit(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, h := range hostileStrings {
		var b bytes.Buffer
		r := hostileReport(h)
		for _, c := range r.Cases {
			c.Elapsed = time.Second
		}
		if err := JUnit(&b, r, Options{}); err != nil {
			t.Fatal(err)
		}
		out[h] = b.Bytes()
	}
	return out
}

// TestJUnitIsWellFormedWhateverTheBytes: each hostile string in every
// field, read back by encoding/xml's strict decoder; a character XML
// forbids is marked with its escape.
func TestJUnitIsWellFormedWhateverTheBytes(t *testing.T) {
	for h, report := range hostileJUnit(t) {
		checkXML(t, fmt.Sprintf("JUnit of %q", h), report)
	}
	var out bytes.Buffer
	if err := JUnit(&out, hostileReport("xml \uFFFE \x1b"), Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `Ωxml \ufffe \x1b`) {
		t.Errorf("the JUnit report does not mark the characters XML forbids:\n%s", out.String())
	}
}

// TestJUnitThroughXmllint reads the same reports with xmllint, libxml2's
// parser (what many CI plugins use).
func TestJUnitThroughXmllint(t *testing.T) {
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		t.Skip("no xmllint on PATH (Debian: apt-get install libxml2-utils); the JUnit report is read with encoding/xml only")
	}
	dir := t.TempDir()
	i := 0
	for h, report := range hostileJUnit(t) {
		i++
		path := filepath.Join(dir, fmt.Sprintf("report-%d.xml", i))
		if err := os.WriteFile(path, report, 0o644); err != nil {
			t.Fatal(err)
		}
		if msg, err := exec.Command(xmllint, "--noout", path).CombinedOutput(); err != nil {
			t.Errorf("xmllint refuses the JUnit of %q: %v\n%s", h, err, msg)
		}
	}
}

// FuzzJUnit: whatever the bytes of every field, the JUnit report is
// well-formed XML to encoding/xml's strict decoder.
func FuzzJUnit(f *testing.F) {
	for _, h := range hostileStrings {
		f.Add(h, "\uFFFE", "\xff")
	}
	f.Fuzz(func(t *testing.T, a, b, c string) {
		var out bytes.Buffer
		if err := JUnit(&out, hostileReport(a, b, c), Options{Commands: Commands{Record: a}}); err != nil {
			t.Fatal(err)
		}
		checkXML(t, "JUnit", out.Bytes())
	})
}

// FuzzRenderDecodedCase decodes the fuzzer's bytes as a case of a JSON
// report, as check --merge reads one, and writes it in every format: no
// format panics whatever the report holds (a field change with neither
// side, a story check with no outcome, a null where a value goes), and the
// text report stays text.
func FuzzRenderDecodedCase(f *testing.F) {
	for _, c := range hostileReport("\x1b[2J", "\n::error::x").Cases {
		data, err := json.Marshal(c)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"status":"changed","files":[{"file":"state-diff.json","members":[{"id":"A","fields":[{"path":"/x"}]}]}],"story":{"checks":[{"label":"L"}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var c report.Case
		if json.Unmarshal(data, &c) != nil || slices.Contains(c.Files, nil) {
			return // readReport refuses a null file diff
		}
		r := reportOf([]*report.Case{&c, &c})
		for _, format := range Formats() {
			var out bytes.Buffer
			if err := format.Write(&out, r, Options{All: true, Verbose: true}); err != nil {
				t.Fatalf("%s: %v", format.Name, err)
			}
			switch format.Name {
			case "text":
				// a decoded report's strings start nowhere in particular:
				// only the control bytes are checked
				text := out.String()
				for _, r := range text {
					if r != '\n' && safetext.Unsafe(r) {
						t.Fatalf("text holds %U:\n%q", r, text)
					}
				}
			case "junit":
				checkXML(t, "JUnit", out.Bytes())
			}
		}
	})
}
