package command

import (
	"bytes"
	"testing"
	"time"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/google/go-cmp/cmp"
)

func TestProgress(t *testing.T) {
	key := baseline.Key{Env: "crm", Agent: "solver", Task: "TASK-001"}
	tests := []struct {
		name     string
		terminal bool
		at       []time.Duration // when each of the cases finishes
		want     string
	}{
		{"short run in a log: silent", false, []time.Duration{time.Second, 2 * time.Second}, ""},
		{"long run in a log: a line every 5 s and the last", false,
			[]time.Duration{time.Second, 6 * time.Second, 7 * time.Second, 12 * time.Second, 13 * time.Second},
			"[2/5] 6 s\n[4/5] 12 s\n[5/5] 13 s\n"},
		{"terminal: one line rewritten", true, []time.Duration{time.Second, 2 * time.Second},
			"\r\033[K[1/2] 1 s crm/solver/TASK-001\r\033[K[2/2] 2 s crm/solver/TASK-001\r\033[K"},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		clock := start
		p := newProgress(&buf, tt.terminal)
		p.now = func() time.Time { return clock }
		p.start, p.last = start, start
		for i, at := range tt.at {
			clock = start.Add(at)
			p.Done(i+1, len(tt.at), key)
		}
		p.End()
		if diff := cmp.Diff(tt.want, buf.String()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 4210: "4,210", 1234567: "1,234,567", -1000: "-1,000"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
