package render

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/oracle"
)

// TestJUnitCarriesTheDiff reads the JUnit XML back: one test case per case,
// the changed one a failure whose message has the verdicts and reward and
// whose body has the word diff and the tool errors.
func TestJUnitCarriesTheDiff(t *testing.T) {
	one, half := 1.0, 0.5
	old, fresh := "the deals close 2026-07-15 & <soon>", "the deals close on 2026-07-15 & <soon>"
	r := &oracle.Report{Cases: []*oracle.CaseReport{
		{Case: "e/a/T-1", Env: "e", Agent: "a", Task: "T-1", Status: oracle.StatusChanged, Label: oracle.LabelRegression,
			OldVerdict: env.Pass, NewVerdict: env.Fail, OldReward: &one, NewReward: &half,
			Files: []*oracle.FileDiff{{File: "result.json", State: oracle.FileChanged, Changes: []oracle.Change{
				{Op: oracle.ChangeReplace, Path: "/agentOutput", From: quote(old), To: quote(fresh), Words: oracle.WordDiff(old, fresh)},
			}}},
			ToolErrors: []oracle.ToolError{{Tool: "get_deal", Code: "not_found", Message: "no deal OPP-999"}}},
		{Case: "e/a/T-2", Env: "e", Agent: "a", Task: "T-2", Status: oracle.StatusUnchanged},
	}}
	var out bytes.Buffer
	if err := JUnit(&out, r, Commands{}); err != nil {
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
