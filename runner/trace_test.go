package runner

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// A trace longer than one block reads back as every event in order, each
// line whole, whatever the block boundaries.
func TestTraceAcrossBlocks(t *testing.T) {
	at := time.Date(2026, 3, 16, 9, 0, 0, 0, time.UTC)
	tr := newTrace(func() time.Time { return at })
	var want strings.Builder
	big := strings.Repeat("x", 1000)
	for i := range 500 {
		tr.add("tool_result", f("callId", i), f("output", json.RawMessage(`{"text": "`+big+`"}`)))
		fmt.Fprintf(&want, `{"seq":%d,"type":"tool_result","at":"2026-03-16T09:00:00.000Z","callId":%d,"output":{"text":"%s"}}`+"\n", i+1, i, big)
	}
	if len(tr.full) == 0 {
		t.Fatalf("a %d-byte trace was kept in one block", want.Len())
	}
	if diff := cmp.Diff(want.String(), string(tr.Bytes())); diff != "" {
		t.Errorf("trace (-want +got):\n%s", diff)
	}
}

// Events are stamped as Format writes stampLayout, in UTC.
func TestStamp(t *testing.T) {
	zone := time.FixedZone("X", -5*3600-30*60)
	for _, at := range []time.Time{
		time.Date(2026, 3, 16, 9, 0, 0, 0, time.UTC),
		time.Date(2026, 12, 31, 23, 59, 59, 999_999_999, zone),
		time.Date(1, 1, 1, 0, 0, 0, 1_000_000, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Unix(1_700_000_000, 123_456_789),
	} {
		want, _ := json.Marshal(at.UTC().Format(stampLayout))
		if got := appendStamp(nil, at); string(got) != string(want) {
			t.Errorf("%v: %s, want %s", at, got, want)
		}
	}
}

// A trace past its limit leaves events out but keeps the closing ones,
// after a trace_truncated event that counts what is missing; seq stays
// without gaps, and such a trace is not replayed.
func TestTraceBounded(t *testing.T) {
	at := time.Date(2026, 3, 16, 9, 0, 0, 0, time.UTC)
	tr := newTrace(func() time.Time { return at })
	tr.limit = 10 << 10
	big := strings.Repeat("x", 1000)
	for i := range 100 {
		tr.add("tool_result", f("callId", i), f("output", big))
	}
	tr.add("agent_output", f("output", "done"))
	tr.add("run_end", f("terminationReason", "completed"))
	data := tr.Bytes()
	if len(data) > 12<<10 {
		t.Errorf("a trace limited to 10 KiB is %d bytes", len(data))
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	var types []string
	for i, l := range lines {
		var ev struct {
			Seq     int    `json:"seq"`
			Type    string `json:"type"`
			Dropped int    `json:"droppedEvents"`
		}
		if err := json.Unmarshal([]byte(l), &ev); err != nil || ev.Seq != i+1 {
			t.Fatalf("line %d: %v, seq %d: %s", i+1, err, ev.Seq, l)
		}
		types = append(types, ev.Type)
		if ev.Type == "trace_truncated" && ev.Dropped+len(lines)-3 != 100 {
			t.Errorf("trace_truncated counts %d events left out; %d of 100 are kept", ev.Dropped, len(lines)-3)
		}
	}
	if want := []string{"trace_truncated", "agent_output", "run_end"}; !cmp.Equal(types[len(types)-3:], want) {
		t.Errorf("the trace ends %v, want %v", types[len(types)-3:], want)
	}
	if _, err := ParseTrace("t.jsonl", data); err == nil || !strings.Contains(err.Error(), "cut short") {
		t.Errorf("ParseTrace of a truncated trace: %v, want it refused", err)
	}
}
