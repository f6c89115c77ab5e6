package oracle

import (
	"testing"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/google/go-cmp/cmp"
)

// The fresh artifacts a report folder keeps come back as they were given,
// in order: a nil artifact (not compared) stays nil and an empty one
// empty, and the trace and whether it was kept are kept.
func TestFreshSpoolGivesBackWhatItTook(t *testing.T) {
	type taken struct {
		Key  baseline.Key
		Kept Kept
	}
	cases := []taken{
		{baseline.Key{Env: "crm", Agent: "solver", Task: "TASK-001"}, Kept{Entry: baseline.Entry{Result: []byte("{}\n"), StateDiff: []byte(`{"a":1}`), Calls: []byte("[]")}, Trace: []byte("{\"seq\":1}\n"), Traced: true}},
		{baseline.Key{Env: "crm", Agent: "solver", Task: "TASK-002"}, Kept{Entry: baseline.Entry{Result: []byte("{}"), Calls: []byte{}}}},
		{baseline.Key{Env: "calendar", Agent: "é", Task: "T"}, Kept{Traced: true, Trace: []byte{}}},
	}
	s := newFreshSpool()
	defer s.close()
	for _, c := range cases {
		if err := s.add(c.Key, &c.Kept); err != nil {
			t.Fatal(err)
		}
	}
	var got []taken
	if err := s.each(func(k baseline.Key, kept *Kept) error {
		got = append(got, taken{k, *kept})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(cases, got); diff != "" {
		t.Errorf("read back (-given +got):\n%s", diff)
	}
	if got[1].Kept.Entry.StateDiff != nil || got[1].Kept.Entry.Calls == nil {
		t.Errorf("nil and empty artifacts are not told apart: %+v", got[1].Kept.Entry)
	}
}
