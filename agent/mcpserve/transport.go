package mcpserve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/agent-oracle/oracle/runner"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServeStdio serves one session over t (stdin and stdout when nil) until
// the client closes it or ctx ends, then ends its rollout and waits for the
// run folder.
func (s *Server) ServeStdio(ctx context.Context, t mcp.Transport) error {
	if t == nil {
		t = &mcp.StdioTransport{}
	}
	err := s.mcp.Run(ctx, t)
	s.Close()
	if err != nil && (errors.Is(err, io.EOF) || ctx.Err() != nil) {
		return nil
	}
	return err
}

// Handler returns the Streamable HTTP handler of the server: every path
// is the MCP endpoint. An idle session is closed, and its rollout ended,
// once the rollout's time budget has passed.
func (s *Server) Handler() http.Handler {
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{SessionTimeout: s.timeout() + time.Minute})
}

func (s *Server) timeout() time.Duration {
	if s.cfg.Run.Timeout > 0 {
		return s.cfg.Run.Timeout
	}
	return runner.DefaultTimeout
}

// ServeHTTP serves Streamable HTTP on addr until ctx ends, then ends the
// rollouts in progress and waits for their run folders. listening is called
// with the URL once the port is open.
func (s *Server) ServeHTTP(ctx context.Context, addr string, listening func(url string)) error {
	addr, err := ListenAddr(addr)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("serve on %s: %w", addr, err)
	}
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	if listening != nil {
		listening("http://" + ln.Addr().String() + "/mcp")
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err = <-errc:
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		err = nil
	}
	s.Close()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// ListenAddr completes an --http address: a bare port or ":PORT" listens on
// the loopback interface (127.0.0.1); a host is used only when given.
func ListenAddr(addr string) (string, error) {
	addr = strings.TrimSpace(addr)
	if _, err := strconv.Atoi(addr); err == nil {
		addr = ":" + addr
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("--http %q: give HOST:PORT or PORT, e.g. 127.0.0.1:8080", addr)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return "", fmt.Errorf("--http %q: %q is not a port; give HOST:PORT or PORT, e.g. 127.0.0.1:8080", addr, port)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), nil
}
