package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// actionlint is the linter of GitHub workflows; .ci/run installs it
// through the Go module proxy and names it in ORACLE_ACTIONLINT.
func actionlint(t *testing.T) string {
	t.Helper()
	if path := os.Getenv("ORACLE_ACTIONLINT"); path != "" {
		return path
	}
	if path, err := exec.LookPath("actionlint"); err == nil {
		return path
	}
	t.Skip("actionlint is not installed: set ORACLE_ACTIONLINT (.ci/run installs it with go install github.com/rhysd/actionlint/cmd/actionlint)")
	return ""
}

// usesEveryInput is a workflow that calls the action as ./ in each of its
// modes, so that actionlint checks the action's metadata and every input
// and output the workflow names against it.
const usesEveryInput = `name: uses the action
on: [pull_request]
jobs:
  source:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - id: gate
        uses: ./
        with:
          version: source
          working-directory: .
          args: --env crm --jobs 2
          summary: "true"
          artifact: oracle-report
      - run: echo "exit ${{ steps.gate.outputs.exit-code }} in ${{ steps.gate.outputs.report-dir }}"
        if: always()
  npm:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: npm ci
      - uses: ./
        with:
          version: npm
  own-binary:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        shard: [1, 2]
    steps:
      - uses: actions/checkout@v4
      - uses: ./
        with:
          binary: ./cmd/helpdesk-oracle
          shard: ${{ matrix.shard }}/${{ strategy.job-total }}
  release:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: ./
        with:
          version: 0.2.0
          merge: shards
`

func lintRepo(t *testing.T, workflows map[string]string) (string, error) {
	t.Helper()
	repo := t.TempDir()
	action, err := os.ReadFile(filepath.Join("..", "..", "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(repo, "action.yml"), action, 0o644)
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	os.MkdirAll(filepath.Join(repo, ".github", "workflows"), 0o755)
	for name, text := range workflows {
		os.WriteFile(filepath.Join(repo, ".github", "workflows", name), []byte(text), 0o644)
	}
	cmd := exec.Command(actionlint(t), "-no-color")
	cmd.Dir = repo
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestActionLints: action.yml, the workflow of docs/examples using it, and
// a workflow using every input pass actionlint; a workflow naming an input
// the action lacks does not, so the lint reads the action.
func TestActionLints(t *testing.T) {
	example, err := os.ReadFile(filepath.Join("..", "..", "docs", "examples", "github-actions.yml"))
	if err != nil {
		t.Fatal(err)
	}
	local := strings.ReplaceAll(string(example), "agent-oracle/oracle@v1", "./")
	if local == string(example) {
		t.Fatal("docs/examples/github-actions.yml does not use the action")
	}
	if out, err := lintRepo(t, map[string]string{"example.yml": local, "every.yml": usesEveryInput}); err != nil {
		t.Fatalf("actionlint: %v\n%s", err, out)
	}
	wrong := strings.Replace(usesEveryInput, "summary: \"true\"", "sumary: \"true\"", 1)
	out, err := lintRepo(t, map[string]string{"wrong.yml": wrong})
	if err == nil || !strings.Contains(out, "sumary") {
		t.Errorf("actionlint accepted an input the action does not declare: %v\n%s", err, out)
	}
}
