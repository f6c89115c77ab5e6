//go:build unix

package runner

import (
	"bytes"
	"testing"
	"time"
)

// An agent that never started (a command that cannot be run at all, one
// that exits before its first message) is trouble of the run, not the
// agent's failure: agent_error with "infrastructure" in result.json. An
// agent that spoke first, or that fails otherwise, is the agent's.
func TestExecAgentNotFoundIsInfrastructure(t *testing.T) {
	t.Parallel()
	const call = `{"type":"call","id":"c1","tool":"list_counters","input":{}}`
	for _, tt := range []struct {
		name, script string
		infra        bool
	}{
		{"command not found", `/nonexistent/agent-binary`, true},
		{"not executable", `/dev/null`, true},
		{"exit 127 after a call", `read s; echo '` + call + `'; read r; exit 127`, false},
		{"exit 1", `read s; exit 1`, true},
		{"exit 0 before a message", `read s; exit 0`, true},
		{"garbage", `read s; echo hello`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := execRun(t, ExecConfig{Command: tt.script, Grace: 10 * time.Second}, Config{})
			r := o.Result
			if r.TerminationReason != AgentError || r.Infrastructure != tt.infra {
				t.Errorf("termination %s, infrastructure %v; want agent_error, %v (error %q)", r.TerminationReason, r.Infrastructure, tt.infra, errorText(r))
			}
			if has := containsInfrastructure(o.Artifacts.Result); has != tt.infra {
				t.Errorf("result.json has \"infrastructure\": %v, want %v", has, tt.infra)
			}
		})
	}
}

func containsInfrastructure(result []byte) bool {
	return bytes.Contains(result, []byte(`"infrastructure": true`))
}
