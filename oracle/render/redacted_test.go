package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/agent-oracle/oracle/oracle/change"
	"github.com/agent-oracle/oracle/oracle/report"
	"github.com/google/go-cmp/cmp"
)

func intp(n int) *int { return &n }

// TestRedactedNote: a case's line counts what its rules redacted, and
// what differed between its runs when it ran more than once.
func TestRedactedNote(t *testing.T) {
	for _, tt := range []struct {
		r    *report.Redacted
		want string
	}{
		{nil, ""},
		{&report.Redacted{Values: 3}, "3 values redacted"},
		{&report.Redacted{Values: 1}, "1 value redacted"},
		{&report.Redacted{Values: 2, Differ: intp(0)}, "2 values redacted, none differ between runs"},
		{&report.Redacted{Values: 3, Differ: intp(3)}, "3 redacted values differ between runs"},
		{&report.Redacted{Values: 1, Differ: intp(1)}, "1 redacted value differs between runs"},
		{&report.Redacted{Values: 5, Differ: intp(3)}, "3 redacted values differ between runs, of 5 redacted"},
	} {
		if got := redactedNote(&report.Case{Redacted: tt.r}); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.r, got, tt.want)
		}
	}
	cr := &report.Case{Redacted: &report.Redacted{Values: 1}}
	if got := withRedactedNote("reward 1", cr); got != "reward 1; 1 value redacted" {
		t.Errorf("withRedactedNote = %q", got)
	}
}

// redactedReport is a check of two cases of an environment with
// redactions: one unchanged whose runs differed in two redacted values,
// the values shown, and one changed because a rule was removed.
func redactedReport() *report.Report {
	unchanged := &report.Case{Case: "stamp/solver/TASK-001", Env: "stamp", Agent: "solver", Task: "TASK-001", Status: report.StatusUnchanged,
		Redacted: &report.Redacted{Values: 2, Differ: intp(2), More: 3, Shown: []report.RedactedValue{
			{File: "calls.json", Pointer: "/0/output/id", Rules: []int{0}, First: `"a1"`, Later: `"b2"`, Value: `"[redacted: string]"`},
			{File: "result.json", Pointer: "/agentOutput", Rules: []int{1, 2}, First: `"at 09:00"`, Value: `"at [time]"`},
		}}}
	changed := &report.Case{Case: "stamp/solver/TASK-002", Env: "stamp", Agent: "solver", Task: "TASK-002", Status: report.StatusChanged,
		Redacted: &report.Redacted{Values: 1, Differ: intp(0)},
		Files: []*change.FileDiff{{File: "calls.json", State: change.FileChanged,
			Changes: []change.Change{{Op: change.ChangeReplace, Path: "/0/input", From: []byte(`"[redacted: object]"`), To: []byte(`{"item":"widget"}`)}},
			Redactions: []change.RedactionNote{{Cause: "redaction-removed", Count: 7, Pointers: []string{"/0/input", "/1/input"},
				Note: "the baseline holds a redaction marker that no rule makes now"}}}}}
	r := &report.Report{Cases: []*report.Case{unchanged, changed}}
	r.Summary = report.Summary{Total: 2, Unchanged: 1, Changed: 1, RedactedDiffer: 2, RedactedCases: 1}
	return r
}

// TestTextRedacted: the text report counts the redacted values on each
// case's line and in its summary, names the rules in a changed file's
// differences, and lists the shown values of a case it lists for them,
// unchanged as it is.
func TestTextRedacted(t *testing.T) {
	var out bytes.Buffer
	if err := Text(&out, redactedReport(), Options{Program: "oracle"}); err != nil {
		t.Fatal(err)
	}
	want := `unchanged        stamp/solver/TASK-001  2 redacted values differ between runs
    redacted values:
      · calls.json /0/output/id: "a1" → "b2", redacted to "[redacted: string]" by redact[0]
      · result.json /agentOutput: "at 09:00", redacted to "at [time]" by redact[1], redact[2]
      · and 3 more
changed          stamp/solver/TASK-002  1 value redacted, none differ between runs
    calls.json
      ~ /0/input: "[redacted: object]" → {"item":"widget"}
      ! redaction at /0/input, /1/input and 5 more: the baseline holds a redaction marker that no rule makes now

2 cases: 1 unchanged, 1 changed
redacted: 2 values differ between runs in 1 case, hidden from the comparison by the environments' redact rules; oracle check --show-redacted lists them
`
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("text (-want +got):\n%s", diff)
	}
}

// TestOtherFormatsRedacted: Markdown, HTML and JUnit say as much, but list
// no value.
func TestOtherFormatsRedacted(t *testing.T) {
	for _, f := range Formats() {
		if f.Name == "text" || f.Name == "json" {
			continue
		}
		var out bytes.Buffer
		if err := f.Write(&out, redactedReport(), Options{}); err != nil {
			t.Fatal(err)
		}
		s := out.String()
		for _, want := range []string{"1 value redacted, none differ between runs", "redaction at /0/input", "no rule makes now"} {
			if !strings.Contains(s, want) {
				t.Errorf("%s: no %q in\n%s", f.Name, want, s)
			}
		}
		if f.Name != "junit" && !strings.Contains(s, "2 values differ between runs in 1 case") {
			t.Errorf("%s: no summary of the redacted values in\n%s", f.Name, s)
		}
		if strings.Contains(s, `"a1"`) || strings.Contains(s, "a1") {
			t.Errorf("%s lists a redacted value:\n%s", f.Name, s)
		}
	}
}

// TestRedactedLinesAreEscaped: the values and places a redaction line
// shows come from tools and agents; what a terminal would act on is
// written as an escape.
func TestRedactedLinesAreEscaped(t *testing.T) {
	cr := &report.Case{Redacted: &report.Redacted{Values: 1, Shown: []report.RedactedValue{
		{File: "calls.json", Pointer: "/0/output/\x1b]0;x\x07", Rules: []int{0}, First: "\"\x1b[2J\"", Value: `"[redacted: string]"`}}}}
	for _, line := range shownLines(cr) {
		if strings.ContainsAny(line, "\x1b\x07") {
			t.Errorf("a shown line holds a control character: %q", line)
		}
	}
	f := &change.FileDiff{Redactions: []change.RedactionNote{{Note: "n", Count: 1, Pointers: []string{"/\x1b[1m"}}}}
	if lines := redactionLines(f); len(lines) != 1 || strings.Contains(lines[0], "\x1b") {
		t.Errorf("redaction lines %q", lines)
	}
}
