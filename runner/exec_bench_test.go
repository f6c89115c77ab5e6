//go:build unix

package runner

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/agent-oracle/oracle/env"
)

// benchSandboxes are the sandbox modes the exec benchmarks compare; bwrap
// is skipped where it does not work.
var benchSandboxes = []SandboxMode{SandboxNone, SandboxBwrap}

// benchSandbox runs f as a sub-benchmark for each sandbox mode.
func benchSandbox(b *testing.B, f func(b *testing.B, mode SandboxMode)) {
	for _, mode := range benchSandboxes {
		b.Run("sandbox="+string(mode), func(b *testing.B) {
			if mode == SandboxBwrap {
				needBwrap(b)
			}
			f(b, mode)
		})
	}
}

// BenchmarkExecRoundTrip measures one protocol round trip, a call and its
// result, through a real child process (the test binary as an agent). The
// process's start and end are outside the timer: it makes one call before
// the timer starts and b.N calls after.
func BenchmarkExecRoundTrip(b *testing.B) {
	benchSandbox(b, func(b *testing.B, mode SandboxMode) {
		cfg := helperExec(b, "calls", "ORACLE_TEST_CALLS="+strconv.Itoa(b.N+1))
		cfg.Sandbox.Mode = mode
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
	})
}

// BenchmarkExecRollout measures a whole rollout of an exec agent (the test
// binary solving the toy task in two calls): the process's start, the
// conversation, its end and the grading. The difference between the modes
// is the sandbox's cost per rollout.
func BenchmarkExecRollout(b *testing.B) {
	benchSandbox(b, func(b *testing.B, mode SandboxMode) {
		e := newToy(b, toyVerifier(setToFive), nil)
		task := toyTask(b, e)
		cfg := helperExec(b, "solve-toy")
		cfg.Sandbox.Mode = mode
		agent := ExecAgent(cfg)
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			o, err := Run(context.Background(), e, task, agent, Config{Agent: "exec"})
			if err != nil {
				b.Fatal(err)
			}
			if !o.Result.Passed {
				b.Fatalf("the agent failed: %s", errorText(o.Result))
			}
		}
	})
}
