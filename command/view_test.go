package command_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-oracle/oracle/command"
	"github.com/agent-oracle/oracle/fixtures"
	"github.com/google/go-cmp/cmp"
)

// oracleRun runs the command line in the project dir and returns its exit
// code, stdout and stderr.
func oracleRun(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := command.Run(context.Background(), append([]string{"oracle", "-C", dir}, args...), fixtures.All, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// modelRun runs an openai: agent on crm TASK-004 against a fake chat API
// that first calls a tool, then is refused once (429), then answers; it
// returns the project and the run folder.
func modelRun(t *testing.T) (string, string) {
	t.Helper()
	const key = "sk-never-on-the-page"
	turns := []struct {
		status int
		body   string
	}{
		{200, `{"choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"weighted_pipeline","arguments":"{}"}}]}}]}`},
		{429, `{"error":{"message":"slow down <b>now</b>"}}`},
		{200, `{"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"The weighted pipeline is </script><script>alert(1)</script> large."}}]}`},
	}
	var mu sync.Mutex
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		defer mu.Unlock()
		if len(turns) == 0 {
			t.Error("more requests than the script has")
			w.WriteHeader(500)
			return
		}
		tn := turns[0]
		turns = turns[1:]
		if tn.status == 429 {
			w.Header().Set("Retry-After", "0")
		}
		w.WriteHeader(tn.status)
		io.WriteString(w, tn.body)
	}))
	t.Cleanup(api.Close)
	t.Setenv("OPENAI_BASE_URL", api.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", key)
	dir := t.TempDir()
	code, stdout, stderr := oracleRun(t, dir, "run", "--env", "crm", "--task", "TASK-004", "--agent", "openai:local-model", "--json")
	if code == command.ExitTrouble {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	var out struct {
		RunDir string `json:"runDir"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(out.RunDir) {
		out.RunDir = filepath.Join(dir, out.RunDir)
	}
	return dir, out.RunDir
}

var viewHead = regexp.MustCompile(`(?s)<li class="entry kind-(\w+)[^"]*"[^>]*>\s*<div class="head">(.*?)</div>`)
var anyTag = regexp.MustCompile(`<[^>]+>`)

// viewEntries lists the timeline of a page: each entry's kind and head.
func viewEntries(page string) []string {
	var out []string
	for _, m := range viewHead.FindAllStringSubmatch(page, -1) {
		head := strings.Fields(html.UnescapeString(anyTag.ReplaceAllString(m[2], " ")))
		// times vary between runs: keep what says what happened
		var kept []string
		for i := 0; i < len(head); i++ {
			switch head[i] {
			case "at":
				i++
				continue
			case "took":
				i += 2
				continue
			}
			if i+1 < len(head) && head[i+1] == "ms" {
				i++
				continue
			}
			kept = append(kept, head[i])
		}
		out = append(out, m[1]+": "+strings.Join(kept, " "))
	}
	return out
}

// TestViewOfAModelRun: the run of a model agent is a page whose timeline
// holds each request to the model, each response (what it said, the
// tools it called for, the refusal it was given), the tool call between
// them and the answer, in the order they happened; the model's text is
// escaped and the API key is nowhere on the page.
func TestViewOfAModelRun(t *testing.T) {
	dir, run := modelRun(t)
	code, page, stderr := oracleRun(t, dir, "view", run)
	if code != 0 {
		t.Fatalf("view: exit %d: %s", code, stderr)
	}
	want := []string{
		"start: start task TASK-004 agent openai:local-model budget 100 calls, 2m0s",
		"model: model request turn 1 attempt 1 2 messages",
		"model: model response turn 1 attempt 1 status 200",
		"call: #1 weighted_pipeline",
		"model: model request turn 2 attempt 1 4 messages, 2 new",
		"model: model response ✗ status 429 turn 2 attempt 1 status 429",
		"model: model request turn 2 attempt 2",
		"model: model response turn 2 attempt 2 status 200",
		"answer: answer",
		"end: end completed 1 tool call, 0 errors",
		"grade: graded verdict fail reward 0.67 verifier VER-004",
	}
	if diff := cmp.Diff(want, viewEntries(page)); diff != "" {
		t.Errorf("the timeline (-want +got):\n%s", diff)
	}
	for _, want := range []string{
		`<div class="label">calls for</div><pre class="value">weighted_pipeline</pre>`,
		`<div class="label">says</div><pre class="value">The weighted pipeline is &lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt; large.</pre>`,
		`slow down &lt;b&gt;now&lt;/b&gt;`,
		`For the quarterly board pack, Philippa Crane needs the pipeline`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if strings.Contains(page, "sk-never-on-the-page") || strings.Contains(page, "<script") {
		t.Error("the page holds the API key or a script")
	}
}

// lockedBuffer is a buffer written by one goroutine and read by another.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestViewServe serves the page of a run on a free loopback port until
// interrupted: / answers the page written by --out with its policy as a
// header, and nothing else is served, nor to a request that names another
// host (a name pointed at 127.0.0.1 by another site).
func TestViewServe(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := oracleRun(t, dir, "run", "--env", "crm", "--task", "TASK-002"); code != 0 {
		t.Fatalf("run: %s", stderr)
	}
	runs, _ := filepath.Glob(filepath.Join(dir, ".silo", "runs", "run_*"))
	if len(runs) != 1 {
		t.Fatalf("runs: %v", runs)
	}
	file := filepath.Join(t.TempDir(), "page.html")
	if code, _, stderr := oracleRun(t, dir, "view", "--out", file, runs[0]); code != 0 {
		t.Fatalf("view --out: %s", stderr)
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- command.Run(ctx, []string{"oracle", "-C", dir, "view", "--serve", "0", runs[0]}, fixtures.All, &stdout, &stderr)
	}()
	serving := regexp.MustCompile(`^view: serving http://(127\.0\.0\.1:\d+)/ \(interrupt to stop\)\n`)
	var addr string
	for deadline := time.Now().Add(30 * time.Second); addr == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := serving.FindStringSubmatch(stderr.String()); m != nil {
			addr = m[1]
		}
		select {
		case code := <-done:
			t.Fatalf("view --serve ended (exit %d): %s", code, stderr.String())
		default:
		}
	}
	if addr == "" {
		t.Fatalf("no address on stderr: %q", stderr.String())
	}
	get := func(method, path, host string) (*http.Response, string) {
		t.Helper()
		req, err := http.NewRequest(method, "http://"+addr+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if host != "" {
			req.Host = host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp, string(body)
	}
	resp, body := get("GET", "/", "")
	if resp.StatusCode != 200 || body != string(want) {
		t.Errorf("GET /: %s, %d bytes; want 200 and the page --out wrote (%d bytes)", resp.Status, len(body), len(want))
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.HasPrefix(csp, "default-src 'none'; style-src 'sha256-") ||
		resp.Header.Get("Content-Type") != "text/html; charset=utf-8" || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("headers: %v", resp.Header)
	}
	_, port, _ := net.SplitHostPort(addr)
	if resp, _ := get("GET", "/", "localhost:"+port); resp.StatusCode != 200 {
		t.Errorf("GET / for localhost: %s", resp.Status)
	}
	for _, tt := range []struct{ method, path, host string }{
		{"GET", "/other", ""}, {"GET", "/../etc/passwd", ""}, {"POST", "/", ""},
		{"GET", "/", "attacker.example:" + port}, {"GET", "/", "attacker.example"},
	} {
		if resp, body := get(tt.method, tt.path, tt.host); resp.StatusCode == 200 || strings.Contains(body, "<!DOCTYPE") {
			t.Errorf("%s %s (Host %q): %s, the page served", tt.method, tt.path, tt.host, resp.Status)
		}
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 || !strings.HasSuffix(stderr.String(), "view: stopped\n") || stdout.String() != "" {
			t.Errorf("interrupted: exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("view --serve did not stop when interrupted")
	}
}

// TestViewServeAddress: a bare port, or one with no host, listens on the
// loopback address only; a host named is listened on, with a warning.
func TestViewServeAddress(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := oracleRun(t, dir, "run", "--env", "crm", "--task", "TASK-002"); code != 0 {
		t.Fatalf("run: %s", stderr)
	}
	runs, _ := filepath.Glob(filepath.Join(dir, ".silo", "runs", "run_*"))
	for _, tt := range []struct {
		addr, listens string
		warned        bool
	}{{"0", "127.0.0.1:", false}, {":0", "127.0.0.1:", false}, {"localhost:0", "127.0.0.1:", false}, {"0.0.0.0:0", "", true}} {
		ctx, cancel := context.WithCancel(context.Background())
		var stdout, stderr lockedBuffer
		done := make(chan int, 1)
		go func() {
			done <- command.Run(ctx, []string{"oracle", "view", "--serve", tt.addr, runs[0]}, fixtures.All, &stdout, &stderr)
		}()
		for deadline := time.Now().Add(30 * time.Second); !strings.Contains(stderr.String(), "serving") && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
		<-done
		out := stderr.String()
		if !strings.Contains(out, "view: serving http://"+tt.listens) || strings.Contains(out, "serving http://127.") == tt.warned ||
			strings.Contains(out, "reachable from other machines") != tt.warned {
			t.Errorf("--serve %s: %q", tt.addr, out)
		}
	}
}

// TestViewIsDeterministic: two views of one run are the same bytes, and
// the page names the program that made it.
func TestViewIsDeterministic(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := oracleRun(t, dir, "run", "--env", "crm", "--task", "TASK-003"); code != 0 {
		t.Fatalf("run: %s", stderr)
	}
	runs, _ := filepath.Glob(filepath.Join(dir, ".silo", "runs", "run_*"))
	_, a, _ := oracleRun(t, dir, "view", runs[0])
	_, b, _ := oracleRun(t, dir, "view", runs[0])
	if a != b || !strings.Contains(a, fmt.Sprintf("Made by oracle %s view.", command.Version)) {
		t.Errorf("two views differ, or do not name the program (%d and %d bytes)", len(a), len(b))
	}
}
