package render

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTextGolden pins the text report of a regression (its story first,
// the folded fields named on one line, a value cut short), a state-diff
// change, a missing case and a second case with the same change as the
// first, plain and with --verbose.
func TestTextGolden(t *testing.T) {
	r := sampleReport()
	same := *r.Cases[1]
	same.Case, same.Task = "crm/solver/TASK-009", "TASK-009"
	r.Cases = append(r.Cases, &same)
	r.Summary.Total, r.Summary.Changed = 5, 3
	cmds := Commands{Record: "oracle record", Unfold: "oracle check --verbose"}
	for _, tt := range []struct {
		name string
		o    Options
		want string
	}{
		{"plain", Options{Commands: cmds}, `changed          crm/solver/TASK-001  regression (pass → fail); reward 1 → 0.5
    checks:
      ✗ "Names the close date" (required): passed → failed; "no close date in the answer"
    tool errors of this run: 1 (the baseline's run had 0; no calls.json is compared for this case, so which are new is not known)
      ! get_deal: not_found no deal OPP-999
    result.json
      ~ /agentOutput: "…Finch <west> are expected to close {+on +}2026-07-15."
      ~ /deals: {"deals":[{"id":"OPP-001","amount":1000},{"id":"OPP-001","amount":1000},{"id":"OPP-001","amount":1000},{"id":"OPP-001","amount":1000},{"id":"OPP-001","amount":1… → {"deals":[]}
      (said above: /checks/1/passed; oracle check --verbose lists them)
      ! invisible difference: /agentOutput: escaping of "&" changed (& → \u0026)
changed          crm/solver/TASK-002  verdict pass, as before; reward 1
    state-diff.json
      ~ tickets TCK-003: changed differently
        + /priority: "urgent" → "high" (now also changed)
missing          crm/solver/TASK-003  no baseline; run oracle record to freeze it
changed          crm/solver/TASK-009  verdict pass, as before; reward 1
    the same change as crm/solver/TASK-002

the same change in 2 cases: crm/solver/TASK-002, crm/solver/TASK-009 (shown with the first)
5 cases: 1 unchanged, 3 changed (1 regression), 1 missing
`},
		{"verbose", Options{Commands: cmds, Verbose: true, MaxCases: 1}, `changed          crm/solver/TASK-001  regression (pass → fail); reward 1 → 0.5
    checks:
      ✗ "Names the close date" (required): passed → failed; "no close date in the answer"
    tool errors of this run: 1 (the baseline's run had 0; no calls.json is compared for this case, so which are new is not known)
      ! get_deal: not_found no deal OPP-999
    result.json
      ~ /agentOutput: "…Finch <west> are expected to close {+on +}2026-07-15."
      ~ /checks/1/passed (check "Names the close date"): true → false
      ~ /deals: {"deals":[{"id":"OPP-001","amount":1000},{"id":"OPP-001","amount":1000},{"id":"OPP-001","amount":1000},{"id":"OPP-001","amount":1000},{"id":"OPP-001","amount":1… → {"deals":[]}
      ! invisible difference: /agentOutput: escaping of "&" changed (& → \u0026)

3 more cases need attention (2 changed, 1 missing), not listed here; every case is in the report folder (oracle check --report-dir) and the JSON report
5 cases: 1 unchanged, 3 changed (1 regression), 1 missing
`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			if err := Text(&out, r, tt.o); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, out.String()); diff != "" {
				t.Errorf("text report (-want +got):\n%s", diff)
			}
		})
	}
}
