package timeline

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/runner"
)

// hostile is text that a page must show as text: markup, a script's end,
// a right-to-left override, an escape sequence and a NUL.
const hostile = "</script><script>alert(1)</script> <img src=x onerror=alert(2)> \u202egnp.exe \x1b[31mred\x00"

type counter struct {
	ID    string `json:"id"`
	Value int    `json:"value"`
	Label string `json:"label"`
}

type world struct {
	Counters []counter `json:"counters"`
	Note     string    `json:"note"`
}

// toyEnv is an environment whose task and tools carry hostile text: a
// tool that changes a counter, one that adds one, one that always fails,
// and one that sets the world's note (a scalar).
func toyEnv(t *testing.T) (env.Environment, env.Task) {
	t.Helper()
	instr, _ := json.Marshal("Set C-1 to 5. " + hostile)
	set := func(_ context.Context, s *world, in json.RawMessage) (any, error) {
		var c counter
		if err := json.Unmarshal(in, &c); err != nil {
			return nil, err
		}
		for i := range s.Counters {
			if s.Counters[i].ID == c.ID {
				s.Counters[i] = c
				return c, nil
			}
		}
		return nil, env.Errorf("not_found", "no counter %s", c.ID)
	}
	e, err := env.New(env.Definition[world]{
		Name: "toy",
		TaskFiles: fstest.MapFS{"tasks/TASK-001.json": {Data: []byte(`{"id":"TASK-001","title":"Set C-1 <b>to</b> 5","instruction":` +
			string(instr) + `,"verifierId":"VER-001"}`)}},
		NewState: func(env.Task) (*world, error) {
			return &world{Counters: []counter{{"C-1", 1, "one"}, {"C-2", 2, "two"}}, Note: "before"}, nil
		},
		Tools: []env.Tool[world]{
			{Name: "set_counter", Description: "Sets a counter <em>now</em>.", InputSchema: `{"type":"object"}`, Run: set},
			{Name: "add_counter", Description: "Adds a counter.", InputSchema: `{"type":"object"}`, Run: func(_ context.Context, s *world, in json.RawMessage) (any, error) {
				var c counter
				if err := json.Unmarshal(in, &c); err != nil {
					return nil, err
				}
				s.Counters = append(s.Counters, c)
				return c, nil
			}},
			{Name: "list_counters", Description: "Lists the counters, and as many more made up.", InputSchema: `{"type":"object"}`, Run: func(_ context.Context, s *world, in json.RawMessage) (any, error) {
				list := append([]counter(nil), s.Counters...)
				for i := range 30 {
					list = append(list, counter{fmt.Sprintf("X-%02d", i), i, "made up"})
				}
				return list, nil
			}},
			{Name: "set_note", Description: "Sets the note.", InputSchema: `{"type":"object"}`, Run: func(_ context.Context, s *world, in json.RawMessage) (any, error) {
				var n struct{ Note string }
				if err := json.Unmarshal(in, &n); err != nil {
					return nil, err
				}
				s.Note = n.Note
				return n, nil
			}},
		},
		Verifiers: []env.Verifier[world]{{
			ID: "VER-001", TaskID: "TASK-001", Name: "C-1 is 5",
			Check: func(final, _ *world, _ env.VerifyContext) []env.CheckResult {
				return []env.CheckResult{
					env.Check("C-1 is 5 <i>italic</i>", final.Counters[0].Value == 5, fmt.Sprint("C-1 = ", final.Counters[0].Value)),
					env.Optional("The note is kept", final.Note == "before", "note "+final.Note),
					env.Forbid("A counter was removed", len(final.Counters) < 2, ""),
					env.Covered("Every counter was seen", true, "all of them"),
				}
			},
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := e.Tasks()
	if err != nil {
		t.Fatal(err)
	}
	return e, tasks[0]
}

// hostileAgent lists the counters (a long output), changes C-1, fails a call, adds a counter, sets the note,
// logs an event of its own and answers with a megabyte of hostile text.
var hostileAgent = env.AgentFunc(func(ctx context.Context, in env.AgentInput) (any, error) {
	in.Call(ctx, "list_counters", map[string]any{})
	in.Call(ctx, "set_counter", map[string]any{"id": "C-1", "value": 5, "label": "<img src=x onerror=alert(3)>"})
	in.Call(ctx, "set_counter", map[string]any{"id": "</script>", "value": 0})
	in.Call(ctx, "add_counter", map[string]any{"id": "C-9", "value": 9, "label": "\u202eevil"})
	in.Call(ctx, "set_note", map[string]any{"note": "after <b>"})
	in.Log("custom_thing", map[string]any{"html": "<b>bold</b>" + hostile, "n": 1})
	return hostile + strings.Repeat("x", 1<<20) + "END-OF-ANSWER", nil
})

// realRun rolls agent through the toy task and writes its run folder.
func realRun(t *testing.T, agent env.Agent) string {
	t.Helper()
	e, task := toyEnv(t)
	o, err := runner.Run(context.Background(), e, task, agent, runner.Config{Agent: "hostile"})
	if err != nil {
		t.Fatal(err)
	}
	dir, err := runner.WriteRun(filepath.Join(t.TempDir(), runner.RunsDir), o)
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// pageOf makes the page of the rollout at path.
func pageOf(t *testing.T, path string) string {
	t.Helper()
	src, err := Locate(path, "")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Load(src)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, r, Options{Program: "oracle test"}); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// writeFiles writes files (name → content) into a new folder.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

var entryHead = regexp.MustCompile(`(?s)<li class="entry kind-(\w+)[^"]*"[^>]*>\s*<div class="head">(.*?)</div>`)
var tags = regexp.MustCompile(`<[^>]+>`)

// entries lists the timeline's entries in the page's order: kind, then the
// text of the entry's head.
func entries(page string) []string {
	var out []string
	for _, m := range entryHead.FindAllStringSubmatch(page, -1) {
		out = append(out, m[1]+": "+strings.Join(strings.Fields(html.UnescapeString(tags.ReplaceAllString(m[2], " "))), " "))
	}
	return out
}
