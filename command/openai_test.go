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
