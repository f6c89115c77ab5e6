package command_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-oracle/oracle/command"
	"github.com/agent-oracle/oracle/fixtures"
)

// TestRunOpenAIAgent runs `oracle run --agent openai:MODEL` against a fake
// chat completions API named by OPENAI_BASE_URL: the model's answer is the
// output, the flags reach the request, and the key reaches no file.
func TestRunOpenAIAgent(t *testing.T) {
	const key = "sk-never-in-a-file"
	var got map[string]any
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &got); err != nil {
			t.Errorf("request: %v", err)
		}
		if r.Header.Get("Authorization") != "Bearer "+key {
			t.Errorf("Authorization header %q", r.Header.Get("Authorization"))
		}
		io.WriteString(w, `{"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"The weighted pipeline is unknown."}}]}`)
	}))
	defer api.Close()
	t.Setenv("OPENAI_BASE_URL", api.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", key)
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := command.Run(context.Background(), []string{"oracle", "-C", dir, "run", "--env", "crm", "--task", "TASK-004",
		"--agent", "openai:local-model", "--model-temperature", "0.5", "--model-seed", "42", "--json"}, fixtures.All, &stdout, &stderr)
	if code != command.ExitChanged {
		t.Fatalf("exit %d, want 1 (the answer fails): %s", code, stderr.String())
	}
	if got["model"] != "local-model" || got["temperature"] != 0.5 || got["seed"] != 42.0 {
		t.Errorf("request model %v, temperature %v, seed %v", got["model"], got["temperature"], got["seed"])
	}
	var out struct {
		RunDir string `json:"runDir"`
		Result struct {
			AgentOutput       string `json:"agentOutput"`
			TerminationReason string `json:"terminationReason"`
		} `json:"result"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	if out.Result.AgentOutput != "The weighted pipeline is unknown." || out.Result.TerminationReason != "completed" {
		t.Errorf("output %q, %s", out.Result.AgentOutput, out.Result.TerminationReason)
	}
	files, _ := filepath.Glob(filepath.Join(out.RunDir, "*"))
	if len(files) == 0 {
		t.Fatal("no run folder")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), key) {
			t.Errorf("%s holds the API key", filepath.Base(f))
		}
	}
}

// TestSecretsReachNoFile: with the key and the base URL's credentials
// echoed by the API into the answer, a rollout, its recording as a replay
// case (also from a trace written before the key was a secret), a check
// with a report folder and every output leave them in no file of the
// project and in neither stdout nor stderr.
func TestSecretsReachNoFile(t *testing.T) {
	const key, userinfo = "sk-echoed-in-every-answer", "ci-user:hunter2-pass"
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		user, pass, _ := r.BasicAuth()
		io.WriteString(w, `{"system_fingerprint":"`+key+`","choices":[{"message":{"role":"assistant","content":"key `+
			strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")+` from `+user+":"+pass+`"}}]}`)
	}))
	defer api.Close()
	t.Setenv("OPENAI_BASE_URL", strings.Replace(api.URL, "http://", "http://"+userinfo+"@", 1)+"/v1")
	t.Setenv("OPENAI_API_KEY", key)
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	run := func(args ...string) int {
		return command.Run(context.Background(), append([]string{"oracle", "-C", dir}, args...), fixtures.All, &stdout, &stderr)
	}
	if code := run("run", "--env", "crm", "--task", "TASK-004", "--agent", "openai:m", "--json"); code != command.ExitChanged {
		t.Fatalf("run: exit %d: %s", code, stderr.String())
	}
	var out struct {
		RunDir string `json:"runDir"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	// a trace from elsewhere (an older oracle) with the key in it
	old := filepath.Join(dir, "old.jsonl")
	trace, err := os.ReadFile(filepath.Join(out.RunDir, "trace.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(old, bytes.ReplaceAll(trace, []byte("[redacted]"), []byte(key)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"record", "--agent", "replay:" + filepath.Join(out.RunDir, "trace.jsonl")},
		{"record", "--agent", "replay:" + old},
		{"check", "--agent", "replay-*", "--report-dir", filepath.Join(dir, "report")},
		{"check", "--agent", "replay-*", "--format", "json"},
	} {
		if code := run(args...); code != 0 {
			t.Fatalf("%s: exit %d: %s", args[0], code, stderr.String())
		}
	}
	os.Remove(old)
	for _, s := range []string{key, userinfo, "hunter2-pass"} {
		if strings.Contains(stdout.String(), s) || strings.Contains(stderr.String(), s) {
			t.Errorf("the output holds %q:\n%s\n%s", s, stdout.String(), stderr.String())
		}
	}
	n := 0
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{key, userinfo, "hunter2-pass"} {
			if bytes.Contains(data, []byte(s)) {
				t.Errorf("%s holds %q", path, s)
			}
		}
		return nil
	})
	if n < 10 {
		t.Errorf("%d files in the project, want the run, the baselines, the traces and the report", n)
	}
}
