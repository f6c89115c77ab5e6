package command

import (
	"testing"

	"github.com/agent-oracle/oracle/runner"
)

// TestSandboxesMode: a check or record's --json names the weakest
// containment any of its exec agents had, and nothing when none ran.
func TestSandboxesMode(t *testing.T) {
	for _, tc := range []struct {
		seen []runner.SandboxMode
		want runner.SandboxMode
	}{
		{nil, ""},
		{[]runner.SandboxMode{"", ""}, ""},
		{[]runner.SandboxMode{runner.SandboxBwrap, ""}, runner.SandboxBwrap},
		{[]runner.SandboxMode{runner.SandboxBwrap, runner.SandboxNone, runner.SandboxBwrap}, runner.SandboxNone},
	} {
		s := &sandboxes{}
		for _, m := range tc.seen {
			s.add(m)
		}
		if got := s.mode(); got != tc.want {
			t.Errorf("%v: mode %q, want %q", tc.seen, got, tc.want)
		}
	}
	var none *sandboxes
	if none.mode() != "" {
		t.Error("a nil set names a mode")
	}
}
