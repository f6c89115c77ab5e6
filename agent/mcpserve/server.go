// Package mcpserve serves an environment's tasks over the Model Context
// Protocol, so any MCP client (an agent framework, an IDE, a script) can be
// the agent of a rollout.
//
// Each MCP session is one rollout through runner.Run, like every other
// agent's: the session becomes an env.Agent fed by the client's tool calls,
// so budgets, schema validation, tool errors, the trace and the artifacts are
// the runner's. Tool errors, invalid inputs and unknown tools come back as
// tool results with isError set, never as JSON-RPC errors. The rollout ends
// when the client calls submit_answer (whose input's answer is the final
// output), when a budget runs out, or when the session closes; its run folder
// is written before the submit_answer reply is sent, and the grade goes to
// Config.Report only: an agent never learns its reward from the server.
package mcpserve

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/runner"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Agent is the agent reference a served rollout records in run.json.
const Agent = "mcp"

// Config is what a server serves and where its rollouts go.
type Config struct {
	Env env.Environment
	// Tasks are the served tasks: one is served at once, several through
	// the start_task tool.
	Tasks []env.Task
	// Run holds the budgets of each rollout; its Agent defaults to "mcp".
	Run runner.Config
	// RunsDir is the folder run folders are written under (a project's
	// .silo/runs).
	RunsDir string
	// Report is given each finished rollout and its run folder, or the
	// error that kept the rollout from ending in one. It is called before
	// the submit_answer reply is sent. Nil means no report.
	Report func(o *runner.Outcome, dir string, err error)
	// Version is the server's version in the MCP handshake.
	Version string
	// For Streamable HTTP (Handler): MaxSessions bounds the sessions open
	// at once (0 means DefaultMaxSessions); IdleTimeout closes a session
	// that sent no request for that long, ending its rollout (0 means
	// DefaultIdleTimeout; never longer than the rollout's time budget and
	// a minute); AllowOrigins are the origins of web pages, besides the
	// loopback host's, whose requests are served ("*" for any).
	MaxSessions  int
	IdleTimeout  time.Duration
	AllowOrigins []string
	// Token, when set, is the secret every HTTP request must present
	// (Authorization: Bearer TOKEN), so that another user of the machine
	// cannot read the task, call its tools, submit answers or take the
	// sessions; ServeHTTP makes one when it is empty.
	Token string
	// Sessions, when set, is told of each session as it starts (once the
	// client has initialized) and as it ends, for the server's log. It is
	// called with the server's lock held: it must not call the server.
	Sessions func(SessionEvent)
}

// SessionEvent is a session starting or ending.
type SessionEvent struct {
	// ID is the session's Mcp-Session-Id; empty over stdio.
	ID string
	// Client is the name and version the client gave (its words: escape
	// them before showing them).
	Client string
	Ended  bool
	// Rollouts is the number of rollouts the session started, when it ends;
	// Unfinished says that one was still in progress (it then ends as
	// agent_error, its run folder written).
	Rollouts   int
	Unfinished bool
}

// Server is an MCP server whose sessions are rollouts.
type Server struct {
	cfg      Config
	mcp      *mcp.Server
	tools    map[string]bool // the environment's tool names
	mu       sync.Mutex
	sessions map[*mcp.ServerSession]*session
	closed   bool
	wg       sync.WaitGroup // rollouts not yet written
}

// session is one MCP session: the rollout it is in, if any.
type session struct {
	current  *rollout
	gone     bool // the session has ended
	rollouts int  // the rollouts it started
}

// New returns a server for cfg. An environment tool whose name or schema
// MCP cannot carry is an error.
func New(cfg Config) (*Server, error) {
	if len(cfg.Tasks) == 0 {
		return nil, errors.New("mcp server: no task to serve")
	}
	if cfg.Run.Agent == "" {
		cfg.Run.Agent = Agent
	}
	tools, err := Tools(cfg.Env.Tools())
	if err != nil {
		return nil, fmt.Errorf("mcp server for %s: %w", cfg.Env.Name(), err)
	}
	s := &Server{cfg: cfg, tools: map[string]bool{}, sessions: map[*mcp.ServerSession]*session{}}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "oracle-" + cfg.Env.Name(), Version: cfg.Version}, &mcp.ServerOptions{
		Instructions: s.instructions(),
		InitializedHandler: func(_ context.Context, req *mcp.InitializedRequest) {
			s.active(req.Session)
		},
		Capabilities: &mcp.ServerCapabilities{
			Tools:   &mcp.ToolCapabilities{},
			Prompts: &mcp.PromptCapabilities{},
		},
		// a rollout needs a session: the sessionless protocol versions
		// cannot carry one
		SupportedProtocolVersions: sessionVersions(),
	})
	for _, t := range tools {
		s.tools[t.Name] = true
		s.mcp.AddTool(t, s.callTool)
	}
	s.mcp.AddTool(submitTool(), s.submit)
	if s.multi() {
		s.mcp.AddTool(startTool(s.taskIDs()), s.start)
	}
	for _, t := range cfg.Tasks {
		s.mcp.AddPrompt(&mcp.Prompt{Name: t.ID, Description: "The instruction of task " + t.ID + "."}, s.prompt(t))
	}
	s.mcp.AddReceivingMiddleware(s.unknownTools)
	return s, nil
}

// MCP returns the underlying go-sdk server, to serve over any transport.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Close ends every rollout in progress as a closed session ends it, and
// waits until their run folders are written. New sessions get no rollout.
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	for _, sess := range s.sessions {
		sess.gone = true
		if sess.current != nil {
			sess.current.leave()
		}
	}
	s.mu.Unlock()
	s.wg.Wait()
}

func (s *Server) multi() bool { return len(s.cfg.Tasks) > 1 }

func (s *Server) taskIDs() []string {
	ids := make([]string, len(s.cfg.Tasks))
	for i, t := range s.cfg.Tasks {
		ids[i] = t.ID
	}
	return ids
}

func (s *Server) instructions() string {
	if !s.multi() {
		return s.cfg.Tasks[0].Instruction + "\n\nWork on this task with the tools of this server. When you are done, " +
			"call submit_answer with your final answer: it ends the task."
	}
	return fmt.Sprintf("This server serves the tasks %s of the %s environment. Call start_task with a task id: "+
		"it starts that task in a fresh world and returns its instruction (also offered as the prompt of that name). "+
		"Work on it with the tools of this server and finish it with submit_answer before starting another.",
		strings.Join(s.taskIDs(), ", "), s.cfg.Env.Name())
}

func (s *Server) prompt(t env.Task) mcp.PromptHandler {
	return func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{
			Description: "The instruction of task " + t.ID + ".",
			Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: t.Instruction}}},
		}, nil
	}
}

// session returns the bookkeeping of ss, creating it (and the watch that
// ends its rollout when it closes) on first sight; s.mu is held.
func (s *Server) session(ss *mcp.ServerSession) *session {
	sess, ok := s.sessions[ss]
	if !ok {
		sess = &session{gone: s.closed}
		s.sessions[ss] = sess
		client := clientOf(ss)
		name, _ := client["name"].(string)
		version, _ := client["version"].(string)
		ev := SessionEvent{ID: ss.ID(), Client: strings.TrimSpace(name + " " + version)}
		s.logSession(ev)
		go func() {
			_ = ss.Wait()
			s.mu.Lock()
			defer s.mu.Unlock()
			sess.gone = true
			ev.Ended, ev.Rollouts = true, sess.rollouts
			if sess.current != nil {
				ev.Unfinished = !sess.current.over()
				sess.current.leave()
			}
			delete(s.sessions, ss)
			s.logSession(ev)
		}()
	}
	return sess
}

// active returns the session's rollout, starting the single served task's
// on first use; nil when no task is started (several tasks are served and
// start_task was not called yet).
func (s *Server) active(ss *mcp.ServerSession) *rollout {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess := s.session(ss)
	if sess.current == nil && !s.multi() && !sess.gone {
		sess.current = s.launch(s.cfg.Tasks[0], clientOf(ss))
		sess.rollouts++
	}
	return sess.current
}

// logSession tells cfg.Sessions of ev; s.mu is held.
func (s *Server) logSession(ev SessionEvent) {
	if s.cfg.Sessions != nil {
		s.cfg.Sessions(ev)
	}
}

func clientOf(ss *mcp.ServerSession) map[string]any {
	p := ss.InitializeParams()
	if p == nil || p.ClientInfo == nil {
		return map[string]any{}
	}
	return map[string]any{"name": p.ClientInfo.Name, "version": p.ClientInfo.Version, "protocolVersion": p.ProtocolVersion}
}

// sessionVersions are the protocol versions with an initialize handshake
// and sessions, newest first.
func sessionVersions() []string {
	var out []string
	for _, v := range mcp.SupportedProtocolVersions() {
		if v < "2026-07-28" {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	slices.Reverse(out)
	return out
}
