package render

import (
	"fmt"
	"io"
	"testing"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/oracle/change"
	"github.com/agent-oracle/oracle/oracle/report"
	"github.com/agent-oracle/oracle/runner/statediff"
)

// benchReport is a report of n changed cases, each a replaced answer with
// its word diff, a few calls.json changes, a state-diff member and a tool
// error: the shape a check of a changed formula gives.
func benchReport(n int) *report.Report {
	one, half := 1.0, 0.5
	r := &report.Report{}
	for i := range n {
		old := fmt.Sprintf("The weighted value of open pipeline is $%d.50 across 12 open opportunities, of which the largest closes 2026-07-15.", 479000+i)
		fresh := fmt.Sprintf("The weighted value of open pipeline is $%d.00 across 12 open opportunities, of which the largest closes 2026-07-15.", 532000+i)
		task := fmt.Sprintf("TASK-%04d", i)
		r.Cases = append(r.Cases, &report.Case{Case: "crm/solver/" + task, Env: "crm", Agent: "solver", Task: task,
			Status: report.StatusChanged, OldVerdict: env.Pass, NewVerdict: env.Pass, OldReward: &one, NewReward: &half,
			Files: []*change.FileDiff{
				{File: "result.json", State: change.FileChanged, Changes: []change.Change{
					{Op: change.ChangeReplace, Path: "/agentOutput", From: quote(old), To: quote(fresh), Words: change.WordDiff(old, fresh)},
					{Op: change.ChangeReplace, Path: "/reward", From: []byte("1"), To: []byte("0.5")},
				}},
				{File: "state-diff.json", State: change.FileChanged, Members: []change.MemberDiff{{Collection: "opportunities", ID: "OPP-004",
					Was: "changed", Now: "changed", Fields: []change.FieldDiff{{Path: "/stageEnteredDate",
						Now: &statediff.Change{Op: "replace", From: quote("2026-01-28"), To: quote("2026-04-13")}}}}}},
				{File: "calls.json", State: change.FileChanged, Changes: []change.Change{
					{Op: change.ChangeReplace, Path: "/0/output/weightedAmount", Call: "#1 weighted_pipeline output /weightedAmount", From: []byte("479659.5"), To: []byte("742719")},
					{Op: change.ChangeAdd, Path: "/1", Call: "#2 get_opportunity", To: []byte(`{"tool":"get_opportunity","input":{"opportunityId":"OPP-999"},"error":{"code":"not_found","message":"No opportunity OPP-999"}}`)},
				}},
			},
			NewToolErrors: []change.FailedCall{{Call: 2, Tool: "get_opportunity", Code: "not_found", Message: "No opportunity OPP-999; list_opportunities shows them."}}})
	}
	r.Summary = report.Summary{Total: n, Changed: n}
	return r
}

// BenchmarkReports writes a report of 500 changed cases in each format.
func BenchmarkReports(b *testing.B) {
	r := benchReport(500)
	for _, f := range Formats() {
		b.Run(f.Name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := f.Write(io.Discard, r, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
