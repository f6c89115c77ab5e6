package render

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"
	"time"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/oracle/change"
	"github.com/agent-oracle/oracle/oracle/report"
	"github.com/google/go-cmp/cmp"
)

// TestJUnitCarriesTheDiff reads the JUnit XML back: one test case per case,
// the changed one a failure whose message has the verdicts and reward and
// whose body has the word diff and the tool errors.
func TestJUnitCarriesTheDiff(t *testing.T) {
	one, half := 1.0, 0.5
	old, fresh := "the deals close 2026-07-15 & <soon>", "the deals close on 2026-07-15 & <soon>"
	r := &report.Report{Cases: []*report.Case{
		{Case: "e/a/T-1", Env: "e", Agent: "a", Task: "T-1", Status: report.StatusChanged, Label: change.LabelRegression,
			OldVerdict: env.Pass, NewVerdict: env.Fail, OldReward: &one, NewReward: &half,
			Files: []*change.FileDiff{{File: "result.json", State: change.FileChanged, Changes: []change.Change{
				{Op: change.ChangeReplace, Path: "/agentOutput", From: quote(old), To: quote(fresh), Words: change.WordDiff(old, fresh)},
			}}},
			ToolErrors: []change.FailedCall{{Tool: "get_deal", Code: "not_found", Message: "no deal OPP-999"}}},
		{Case: "e/a/T-2", Env: "e", Agent: "a", Task: "T-2", Status: report.StatusUnchanged},
	}}
	var out bytes.Buffer
	if err := JUnit(&out, r, Options{}); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
					Body    string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("JUnit XML: %v\n%s", err, out.String())
	}
	if got.Tests != 2 || got.Failures != 1 || len(got.Suites) != 1 || len(got.Suites[0].Cases) != 2 {
		t.Fatalf("counts: %+v", got)
	}
	f := got.Suites[0].Cases[0].Failure
	if f == nil || f.Message != "changed: regression (pass → fail); reward 1 → 0.5" {
		t.Fatalf("failure: %+v", f)
	}
	for _, want := range []string{`~ /agentOutput: "the deals close {+on +}2026-07-15 & <soon>"`, "! get_deal: not_found no deal OPP-999"} {
		if !strings.Contains(f.Body, want) {
			t.Errorf("body lacks %q:\n%s", want, f.Body)
		}
	}
	if got.Suites[0].Cases[1].Failure != nil {
		t.Error("an unchanged case is a failure")
	}
}

// The whole document as encoding/xml writes it from one value, its test
// cases made as the JUnit Writer makes them: what JUnit wrote before it
// streamed its cases, which JUnit and its Writer must write byte for byte.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Cases    []junitCase `xml:"testcase"`
}

func junitReference(r *report.Report, cmds Commands) ([]byte, error) {
	out := junitSuites{Name: "oracle check"}
	index := map[string]int{}
	for _, c := range r.Cases {
		i, ok := index[c.Env]
		if !ok {
			i = len(out.Suites)
			index[c.Env] = i
			out.Suites = append(out.Suites, junitSuite{Name: c.Env})
		}
		s := &out.Suites[i]
		tc := junitCaseOf(c, Options{Commands: cmds})
		switch {
		case tc.Error != nil:
			s.Errors++
		case tc.Failure != nil:
			s.Failures++
		}
		s.Tests++
		s.Cases = append(s.Cases, tc)
	}
	for _, s := range out.Suites {
		out.Tests += s.Tests
		out.Failures += s.Failures
		out.Errors += s.Errors
	}
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	enc := xml.NewEncoder(&buf)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return nil, err
	}
	buf.WriteString("\n")
	return buf.Bytes(), nil
}

// TestJUnitWritesWhatTheEncoderWrites: JUnit (which streams its cases
// through its Writer) writes what encoding/xml writes from the whole
// report, for reports with no case, one environment or several (their
// cases interleaved or not), every status, times, and text that XML must
// escape or split (a "]]>" in a CDATA body, quotes, tabs, invalid UTF-8).
func TestJUnitWritesWhatTheEncoderWrites(t *testing.T) {
	one, half := 1.0, 0.5
	odd := "a & b <c> \"q\" 'x'\ttab\nline ]]> end \xff \u2028"
	changed := func(env, task string) *report.Case {
		return &report.Case{Case: env + "/a/" + task, Env: env, Agent: "a", Task: task, Status: report.StatusChanged, Label: change.LabelRegression,
			OldVerdict: "pass", NewVerdict: "fail", OldReward: &one, NewReward: &half, Elapsed: 1500 * time.Millisecond,
			Files: []*change.FileDiff{{File: "result.json", State: change.FileChanged, Changes: []change.Change{
				{Op: change.ChangeReplace, Path: "/agentOutput", From: quote(odd), To: quote(odd + "!"), Words: change.WordDiff(odd, odd+"!")},
			}}},
			ToolErrors: []change.FailedCall{{Tool: "get", Code: "not_found", Message: odd}}}
	}
	plain := func(env, task string, st report.Status) *report.Case {
		return &report.Case{Case: env + "/a/" + task, Env: env, Agent: "a", Task: task, Status: st}
	}
	errored := plain("e&<\"", "T-3", report.StatusError)
	errored.Error = odd
	reports := []*report.Report{
		{},
		{Cases: []*report.Case{plain("e", "T-1", report.StatusUnchanged)}},
		{Cases: []*report.Case{changed("e", "T-1"), plain("e", "T-2", report.StatusUnchanged), plain("e", "T-3", report.StatusMissing),
			plain("f", "T-1", report.StatusObsolete), errored, plain("g", "T-9", report.StatusNondeterministic)}},
		{Cases: []*report.Case{plain("e", "T-1", report.StatusUnchanged), changed("f", "T-1"), plain("e", "T-2", report.StatusMissing), errored}},
	}
	for i, r := range reports {
		want, err := junitReference(r, Commands{Record: "oracle record"})
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := JUnit(&got, r, Options{Commands: Commands{Record: "oracle record"}}); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(want), got.String()); diff != "" {
			t.Errorf("report %d (-encoder +JUnit):\n%s", i, diff)
		}
	}
}
