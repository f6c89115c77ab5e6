package mcpserve

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
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

// Defaults of Config for Streamable HTTP.
const (
	DefaultMaxSessions = 16
	DefaultIdleTimeout = 10 * time.Minute
	// MaxRequestBytes bounds the body of one HTTP request.
	MaxRequestBytes = 32 << 20
)

// Handler returns the Streamable HTTP handler of the server: every path
// is the MCP endpoint. As the MCP specification requires of Streamable
// HTTP, a request whose Origin header is present and not allowed is
// refused with 403 (see Config.AllowOrigins), and the SDK refuses a
// non-loopback Host on a loopback address (DNS rebinding). A new session
// past Config.MaxSessions is refused with 503; a session idle for
// Config.IdleTimeout is closed, and its rollout ends as a closed
// session's does, its run folder written.
func (s *Server) Handler() http.Handler {
	inner := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{SessionTimeout: s.idle(), MaxRequestBodyBytes: MaxRequestBytes})
	var mu sync.Mutex
	opening := 0 // requests without a session being served: new sessions
	want := []byte("Bearer " + s.cfg.Token)
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if s.cfg.Token != "" && subtle.ConstantTimeCompare([]byte(req.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", "Bearer")
			refuse(w, http.StatusUnauthorized, "Unauthorized: send the token oracle serve printed as it started, as Authorization: Bearer TOKEN")
			return
		}
		if origin := req.Header.Get("Origin"); !OriginAllowed(origin, s.cfg.AllowOrigins) {
			refuse(w, http.StatusForbidden, fmt.Sprintf("Forbidden: Origin %q is not allowed (a page of another site); allow it with --allow-origin", origin))
			return
		}
		if req.Method != http.MethodPost || req.Header.Get("Mcp-Session-Id") != "" {
			inner.ServeHTTP(w, req)
			return
		}
		mu.Lock()
		n := opening
		for range s.mcp.Sessions() {
			n++
		}
		if limit := s.maxSessions(); n >= limit {
			mu.Unlock()
			w.Header().Set("Retry-After", "10")
			refuse(w, http.StatusServiceUnavailable, fmt.Sprintf("Service Unavailable: the server holds %d sessions, its limit (--max-sessions %d); end one (DELETE with its Mcp-Session-Id) or wait", n, limit))
			return
		}
		opening++
		mu.Unlock()
		defer func() {
			mu.Lock()
			opening--
			mu.Unlock()
		}()
		inner.ServeHTTP(w, req)
	})
}

// refuse answers a request with status and a JSON-RPC error without id, as
// the MCP specification allows for a refused Origin.
func refuse(w http.ResponseWriter, status int, msg string) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "error": map[string]any{"code": -32600, "message": msg}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}

// OriginAllowed reports whether a request with the Origin header origin
// may reach the server: one without (a client that is not a browser), a
// page of the loopback host (http or https, any port), or one of allowed
// ("scheme://host[:port]", or "*" for any). "null" and anything that is
// not an origin are refused.
func OriginAllowed(origin string, allowed []string) bool {
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || u.Path != "" || u.User != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	if loopbackHost(u.Hostname()) {
		return true
	}
	for _, a := range allowed {
		if a == "*" || strings.EqualFold(strings.TrimSuffix(a, "/"), u.Scheme+"://"+u.Host) {
			return true
		}
	}
	return false
}

// CheckOrigin reports what is wrong with an --allow-origin value.
func CheckOrigin(o string) error {
	if o == "*" {
		return nil
	}
	u, err := url.Parse(strings.TrimSuffix(o, "/"))
	if err != nil || u.Host == "" || u.Path != "" || u.RawQuery != "" || u.User != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return fmt.Errorf("--allow-origin %q: give an origin, scheme://host[:port], e.g. https://app.example.com, or * for any", o)
	}
	return nil
}

func loopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

func (s *Server) maxSessions() int {
	if s.cfg.MaxSessions > 0 {
		return s.cfg.MaxSessions
	}
	return DefaultMaxSessions
}

// idle is how long a session may go without a request: the idle timeout,
// but never longer than the rollout's time budget and a minute.
func (s *Server) idle() time.Duration {
	d := s.cfg.IdleTimeout
	if d <= 0 {
		d = DefaultIdleTimeout
	}
	return min(d, s.timeout()+time.Minute)
}

func (s *Server) timeout() time.Duration {
	if s.cfg.Run.Timeout > 0 {
		return s.cfg.Run.Timeout
	}
	return runner.DefaultTimeout
}

// ServeHTTP serves Streamable HTTP on addr until ctx ends, then ends the
// rollouts in progress and waits for their run folders. listening is called
// with the URL and the token every request must present (Config.Token,
// made of 32 random bytes when it is empty) once the port is open.
func (s *Server) ServeHTTP(ctx context.Context, addr string, listening func(url, token string)) error {
	if s.cfg.Token == "" {
		b := make([]byte, 32)
		if _, err := rand.Read(b); err != nil {
			return fmt.Errorf("serve: make its token: %w", err)
		}
		s.cfg.Token = hex.EncodeToString(b)
	}
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
		listening("http://"+ln.Addr().String()+"/mcp", s.cfg.Token)
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
