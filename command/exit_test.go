package command

import (
	"testing"

	"github.com/agent-oracle/oracle/oracle"
	"github.com/agent-oracle/oracle/oracle/report"
)

func TestExitCodesOfReports(t *testing.T) {
	checks := []struct {
		statuses []report.Status
		want     int
	}{
		{nil, ExitOK},
		{[]report.Status{report.StatusUnchanged, report.StatusUnchanged}, ExitOK},
		{[]report.Status{report.StatusUnchanged, report.StatusChanged}, ExitChanged},
		{[]report.Status{report.StatusMissing}, ExitChanged},
		{[]report.Status{report.StatusObsolete}, ExitChanged},
		{[]report.Status{report.StatusNondeterministic}, ExitChanged},
		{[]report.Status{report.StatusChanged, report.StatusError, report.StatusMissing}, ExitTrouble},
	}
	for _, tt := range checks {
		r := &report.Report{}
		for _, s := range tt.statuses {
			r.Cases = append(r.Cases, &report.Case{Status: s})
		}
		if got := checkExit(r); got != tt.want {
			t.Errorf("check of %v exits %d, want %d", tt.statuses, got, tt.want)
		}
	}
	records := []struct {
		statuses []oracle.RecordStatus
		want     int
	}{
		{nil, ExitOK},
		{[]oracle.RecordStatus{oracle.RecordWrote, oracle.RecordKept, oracle.RecordRemoved, oracle.RecordObsolete}, ExitOK},
		{[]oracle.RecordStatus{oracle.RecordWrote, oracle.RecordRefused}, ExitChanged},
		{[]oracle.RecordStatus{oracle.RecordRefused, oracle.RecordError}, ExitTrouble},
	}
	for _, tt := range records {
		r := &oracle.RecordReport{}
		for _, s := range tt.statuses {
			r.Cases = append(r.Cases, oracle.RecordedCase{Status: s})
		}
		if got := recordExit(r); got != tt.want {
			t.Errorf("record of %v exits %d, want %d", tt.statuses, got, tt.want)
		}
	}
}
