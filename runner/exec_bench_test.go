//go:build unix

package runner

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/agent-oracle/oracle/env"
)

// BenchmarkExecRoundTrip measures one protocol round trip, a call and its
// result, through a real child process (the test binary as an agent). The
// process's start and end are outside the timer: it makes one call before
// the timer starts and b.N calls after.
func BenchmarkExecRoundTrip(b *testing.B) {
	cfg := helperExec(b, "calls", "ORACLE_TEST_CALLS="+strconv.Itoa(b.N+1))
	output := json.RawMessage(`[{"id":"C-1","value":1},{"id":"C-2","value":2}]`)
	calls := 0
	in := env.AgentInput{
		Task:  "Set counter C-1 to 5.",
		Tools: newToy(b, toyVerifier(setToFive), nil).Tools(),
		Call: func(ctx context.Context, tool string, input any) env.ToolResult {
			calls++
			if calls == 1 {
				b.ReportAllocs()
				b.ResetTimer()
			}
			return env.ToolResult{Output: output}
		},
	}
	out, err := ExecAgent(cfg).Run(context.Background(), in)
	b.StopTimer()
	if err != nil || string(out.(json.RawMessage)) != `"done"` {
		b.Fatalf("agent: %v, output %v", err, out)
	}
	if calls != b.N+1 {
		b.Fatalf("%d calls, want %d", calls, b.N+1)
	}
}
