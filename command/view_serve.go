package command

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/agent-oracle/oracle/oracle/render/timeline"
	"github.com/urfave/cli/v2"
)

// serveAddr is where oracle view --serve listens.
type serveAddr struct {
	addr     string
	loopback bool
}

// parseServeAddr reads --serve: PORT or HOST:PORT; a bare port, or one
// with no host, listens on 127.0.0.1, so the page reaches other machines
// only when a host is named.
func parseServeAddr(s string) (serveAddr, error) {
	if _, err := strconv.Atoi(s); err == nil {
		s = ":" + s
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return serveAddr{}, fmt.Errorf("--serve %q: give PORT or HOST:PORT, e.g. 8080 or 127.0.0.1:8080 (0 for a free port)", s)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return serveAddr{}, fmt.Errorf("--serve %q: %q is not a port (0 to 65535)", s, port)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	ip := net.ParseIP(host)
	return serveAddr{net.JoinHostPort(host, port), host == "localhost" || ip != nil && ip.IsLoopback()}, nil
}

// servePage serves page at / on addr until the command is interrupted.
func servePage(c *cli.Context, addr serveAddr, page []byte) error {
	ln, err := net.Listen("tcp", addr.addr)
	if err != nil {
		return fmt.Errorf("view: --serve: %w", err)
	}
	srv := &http.Server{Handler: pageHandler(page, ln.Addr().String(), addr.loopback), ReadHeaderTimeout: 10 * time.Second}
	w := c.App.ErrWriter
	fmt.Fprintf(w, "view: serving http://%s/ (interrupt to stop)\n", ln.Addr())
	if !addr.loopback {
		fmt.Fprintf(w, "view: %s is reachable from other machines, and the page shows the rollout's inputs and outputs\n", ln.Addr())
	}
	ctx := c.Context
	if ctx == nil {
		ctx = context.Background()
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("view: --serve: %w", err)
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := srv.Shutdown(shut); err != nil {
		srv.Close()
	}
	if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("view: --serve: %w", err)
	}
	fmt.Fprintln(w, "view: stopped")
	return nil
}

// pageHandler answers GET and HEAD of / with the page and its content
// security policy, and nothing else. On a loopback address only requests
// for that address by name or number are answered, so a page of another
// site cannot read it by pointing a name of its own at 127.0.0.1.
func pageHandler(page []byte, addr string, loopback bool) http.Handler {
	_, port, _ := net.SplitHostPort(addr)
	hosts := map[string]bool{addr: true}
	for _, h := range []string{"127.0.0.1", "localhost", "[::1]"} {
		hosts[h+":"+port] = true
	}
	modified := time.Now()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case loopback && !hosts[strings.ToLower(r.Host)]:
			http.Error(w, "this page is served to "+addr+" only", http.StatusMisdirectedRequest)
			return
		case r.URL.Path != "/":
			http.NotFound(w, r)
			return
		case r.Method != http.MethodGet && r.Method != http.MethodHead:
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "GET or HEAD only", http.StatusMethodNotAllowed)
			return
		}
		h := w.Header()
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Content-Security-Policy", timeline.CSP)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cache-Control", "no-store")
		http.ServeContent(w, r, "view.html", modified, bytes.NewReader(page))
	})
}
