package mcpserve

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/runner"
)

// errSessionClosed is the agent's error when its session ends before
// submit_answer.
var errSessionClosed = errors.New("the MCP session closed before submit_answer (the client ended it, or it was idle past the server's idle timeout)")

// rollout is one task's rollout in a session: a runner.Run whose agent
// waits for the client.
type rollout struct {
	task   env.Task
	ready  chan struct{}        // closed once the agent has its input
	in     env.AgentInput       // set before ready is closed
	answer chan json.RawMessage // submit_answer's answer, taken by the agent
	gone   chan struct{}        // closed when the session ends
	once   sync.Once
	// submitted is set by the first submit_answer
	submitted atomic.Bool
	done      chan struct{} // closed once the rollout is over and its folder written
	reason    string        // the termination reason, set before done is closed
}

// leave tells the agent its session has ended.
func (r *rollout) leave() { r.once.Do(func() { close(r.gone) }) }

// over reports whether the rollout has ended.
func (r *rollout) over() bool {
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

// launch starts a rollout of task in a fresh world; s.mu is held.
func (s *Server) launch(task env.Task, client map[string]any) *rollout {
	r := &rollout{task: task, ready: make(chan struct{}), answer: make(chan json.RawMessage, 1),
		gone: make(chan struct{}), done: make(chan struct{})}
	agent := env.AgentFunc(func(ctx context.Context, in env.AgentInput) (any, error) {
		r.in = in
		close(r.ready)
		if in.Log != nil {
			in.Log("mcp_client", client)
		}
		select {
		case a := <-r.answer:
			return a, nil
		case <-r.gone:
			return nil, errSessionClosed
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	})
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer close(r.done)
		// the rollout outlives the request that started it; only its
		// budgets and its session end it
		o, err := runner.Run(context.Background(), s.cfg.Env, task, agent, s.cfg.Run)
		dir := ""
		if err == nil {
			r.reason = o.Result.TerminationReason
			dir, err = runner.WriteRun(s.cfg.RunsDir, o)
		}
		if s.cfg.Report != nil {
			s.cfg.Report(o, dir, err)
		}
	}()
	return r
}
