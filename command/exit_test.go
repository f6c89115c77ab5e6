package command

import (
	"testing"

	"github.com/agent-oracle/oracle/oracle"
)

func TestExitCodesOfReports(t *testing.T) {
	checks := []struct {
		statuses []oracle.Status
		want     int
	}{
		{nil, ExitOK},
		{[]oracle.Status{oracle.StatusUnchanged, oracle.StatusUnchanged}, ExitOK},
		{[]oracle.Status{oracle.StatusUnchanged, oracle.StatusChanged}, ExitChanged},
		{[]oracle.Status{oracle.StatusMissing}, ExitChanged},
		{[]oracle.Status{oracle.StatusObsolete}, ExitChanged},
		{[]oracle.Status{oracle.StatusNondeterministic}, ExitChanged},
		{[]oracle.Status{oracle.StatusChanged, oracle.StatusError, oracle.StatusMissing}, ExitTrouble},
	}
	for _, tt := range checks {
		r := &oracle.Report{}
		for _, s := range tt.statuses {
			r.Cases = append(r.Cases, &oracle.CaseReport{Status: s})
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
